/**
 * xterm.js writes `<style>` elements of its own and has no nonce option; the page's CSP admits
 * only `<style>` elements carrying the nonce its HTML was served with (guard.ts `csp`). So the
 * page stamps that nonce on every `<style>` element it creates, before xterm inserts it.
 */
let done = false;

export function stampStyleNonce(): void {
  if (done) return;
  done = true;
  const nonce = document.querySelector<HTMLMetaElement>('meta[name="klaude-style-nonce"]')?.content ?? '';
  if (!nonce || nonce.startsWith('__')) return;
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (this: Document, tag: string, opts?: ElementCreationOptions) {
    const el = create.call(this, tag, opts);
    if (tag.toLowerCase() === 'style') el.nonce = nonce;
    return el;
  } as typeof Document.prototype.createElement;
}
