// A loopback stand-in of the Gemini API (generativelanguage v1beta) for driving the real `gemini`
// CLI offline. gemini 0.61.0 with `~/.gemini/settings.json` selecting the API-key auth,
// GEMINI_API_KEY=<any> and GOOGLE_GEMINI_BASE_URL=<this url> (see geminiHome() below) POSTs
//   /v1beta/models/<model>:streamGenerateContent?alt=sse   (the conversation; SSE `data: {…}` chunks)
//   /v1beta/models/<model>:generateContent                 (side calls, e.g. routing with model auto)
//   /v1beta/models/<model>:countTokens
// `contents` holds the turns ({role:'user'|'model', parts:[{text}|{functionCall}|{functionResponse}]}).
// Answering with a `run_shell_command` functionCall makes gemini run it (with --approval-mode yolo;
// in other modes headless gemini does not register the shell tool) and send a functionResponse.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { failRequest, Loopback, requestLog, sendJson } from './mock-http.js';

export interface GeminiRequest {
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  kind: 'stream' | 'generate' | 'countTokens' | 'other';
  /** Model from the path. */
  model: string;
  /** Text of the newest user turn that has text. */
  prompt: string;
  /** The newest turn carries functionResponse parts. */
  isToolResult: boolean;
  toolResults: { name: string; response: unknown }[];
  receivedAt: number;
}

export type GeminiReply =
  | { text: string; chunks?: number; delayMs?: number }
  /** A run_shell_command function call (optionally preceded by text). */
  | { shell: { command: string; description?: string }; text?: string }
  | { functionCall: { name: string; args: Record<string, unknown> }; text?: string }
  /** An HTTP error in Google's shape. */
  | { error: { status: number; message: string } }
  | { hang: true };

export type GeminiResponder = (req: GeminiRequest) => GeminiReply | undefined | Promise<GeminiReply | undefined>;

export interface MockGemini {
  url: string;
  port: number;
  requests: GeminiRequest[];
  /** streamGenerateContent requests only (the conversation). */
  mainRequests(): GeminiRequest[];
  setResponder(fn: GeminiResponder | null): void;
  enqueue(...replies: GeminiReply[]): void;
  waitForRequest(pred: (r: GeminiRequest) => boolean, timeoutMs?: number): Promise<GeminiRequest>;
  close(): Promise<void>;
}

export const GEMINI_TEST_MODEL = 'gemini-2.5-pro';

/**
 * Write `<home>/.gemini/settings.json` choosing API-key auth, without update checks or telemetry.
 * Children then need HOME (or GEMINI_CLI_HOME) = home, GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL.
 */
export function geminiHome(home: string, extra: Record<string, unknown> = {}): string {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    telemetry: { enabled: false },
    privacy: { usageStatisticsEnabled: false },
    ...extra,
  };
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
  return home;
}

export function defaultGeminiReply(req: GeminiRequest): GeminiReply {
  return req.isToolResult ? { text: 'Tool finished.' } : { text: `Reply to: ${req.prompt}` };
}

/** The recorded form of a generateContent body (exported for tests of the parser). */
export function parseGeminiBody(body: any): Pick<GeminiRequest, 'prompt' | 'isToolResult' | 'toolResults'> {
  const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
  const last = contents.at(-1);
  const lastParts: any[] = Array.isArray(last?.parts) ? last.parts : [];
  const toolResults = lastParts
    .filter((p) => p?.functionResponse)
    .map((p) => ({ name: String(p.functionResponse.name ?? ''), response: p.functionResponse.response }));
  let prompt = '';
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (c?.role !== 'user' || !Array.isArray(c.parts)) continue;
    const text = c.parts
      .filter((p: any) => typeof p?.text === 'string')
      .map((p: any) => p.text)
      .join('');
    if (text.trim() !== '') {
      prompt = text.trim();
      break;
    }
  }
  return { prompt, isToolResult: toolResults.length > 0, toolResults };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function split(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

/** A harmless answer to a side call: JSON matching the requested schema, else text. */
function sideAnswer(body: any): string {
  const schema = body?.generationConfig?.responseJsonSchema ?? body?.generationConfig?.responseSchema;
  const sample = (s: any): unknown => {
    const t = String(s?.type ?? '').toLowerCase();
    if (t === 'object')
      return Object.fromEntries(Object.entries<any>(s.properties ?? {}).map(([k, v]) => [k, sample(v)]));
    if (t === 'array') return [];
    if (t === 'boolean') return false;
    if (t === 'number' || t === 'integer') return 0;
    if (Array.isArray(s?.enum) && s.enum.length) return s.enum[0];
    return 'mock';
  };
  return schema ? JSON.stringify(sample(schema)) : 'mock';
}

export async function startMockGemini(
  opts: { responder?: GeminiResponder; debug?: boolean } = {},
): Promise<MockGemini> {
  const queue: GeminiReply[] = [];
  let responder = opts.responder ?? null;
  const net = new Loopback();
  const debug = opts.debug ?? process.env.MOCK_GEMINI_DEBUG === '1';

  const log = requestLog<GeminiRequest>(
    'mock-gemini',
    (r) => `${r.method} ${r.path} prompt=${JSON.stringify(r.prompt.slice(0, 80))}`,
    debug,
  );
  const { requests, record } = log;

  const usage = (req: GeminiRequest, out: number) => {
    const prompt = Math.max(1, Math.ceil(JSON.stringify(req.body?.contents ?? '').length / 400));
    return { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out };
  };

  async function answer(
    req: GeminiRequest,
    res: ServerResponse,
    reply: Exclude<GeminiReply, { error: unknown } | { hang: true }>,
  ): Promise<void> {
    const call =
      'shell' in reply
        ? {
            name: 'run_shell_command',
            args: { command: reply.shell.command, description: reply.shell.description ?? 'Run a command' },
          }
        : 'functionCall' in reply
          ? reply.functionCall
          : null;
    const text = 'text' in reply ? reply.text : undefined;
    const outTokens = Math.max(1, Math.ceil((text?.length ?? 0) / 4) + (call ? 10 : 0));
    const candidate = (parts: unknown[], last: boolean) => ({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
      ...(last ? { usageMetadata: usage(req, outTokens) } : {}),
      modelVersion: req.model,
    });
    if (req.kind === 'generate') {
      const parts = [...(text !== undefined ? [{ text }] : []), ...(call ? [{ functionCall: call }] : [])];
      sendJson(res, 200, candidate(parts, true));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (obj: unknown) => {
      if (!res.destroyed) res.write(`data: ${JSON.stringify(obj)}\n\n`);
    };
    const pieces = text !== undefined ? split(text, 'chunks' in reply ? (reply.chunks ?? 1) : 1) : [];
    const delayMs = 'delayMs' in reply ? (reply.delayMs ?? 0) : 0;
    for (const [i, piece] of pieces.entries()) {
      if (delayMs > 0) await sleep(delayMs);
      send(candidate([{ text: piece }], !call && i === pieces.length - 1));
    }
    if (call) send(candidate([{ functionCall: call }], true));
    res.end();
  }

  const server = createServer((inReq, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of inReq) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const path = inReq.url ?? '/';
      const method = inReq.method ?? 'GET';
      const m = /\/models\/([^/:?]+):(streamGenerateContent|generateContent|countTokens)/.exec(path);
      const kind: GeminiRequest['kind'] =
        method !== 'POST' || !m
          ? 'other'
          : m[2] === 'streamGenerateContent'
            ? 'stream'
            : m[2] === 'generateContent'
              ? 'generate'
              : 'countTokens';
      const parsed =
        kind === 'stream' || kind === 'generate'
          ? parseGeminiBody(body)
          : { prompt: '', isToolResult: false, toolResults: [] };
      const rec: GeminiRequest = {
        index: requests.length,
        method,
        path,
        headers: inReq.headers,
        body,
        kind,
        model: m?.[1] ?? '',
        ...parsed,
        receivedAt: Date.now(),
      };
      record(rec);
      if (kind === 'countTokens') {
        sendJson(res, 200, { totalTokens: usage(rec, 0).promptTokenCount });
        return;
      }
      if (kind === 'other') {
        sendJson(res, 404, { error: { code: 404, message: `Not found: ${method} ${path}`, status: 'NOT_FOUND' } });
        return;
      }
      // Side calls (non-streaming generateContent: routing, next-speaker checks) never use the script.
      let reply: GeminiReply | undefined = kind === 'generate' ? { text: sideAnswer(body) } : queue.shift();
      if (!reply && responder) reply = await responder(rec);
      if (!reply) reply = defaultGeminiReply(rec);
      if ('hang' in reply) {
        net.hold(res);
        return;
      }
      if ('error' in reply) {
        sendJson(res, reply.error.status, {
          error: { code: reply.error.status, message: reply.error.message, status: 'INTERNAL' },
        });
        return;
      }
      await answer(rec, res, reply);
    })().catch((err) =>
      failRequest(res, { error: { code: 500, message: String(err?.message ?? err), status: 'INTERNAL' } }),
    );
  });
  const { url, port } = await net.listen(server);
  return {
    url,
    port,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === 'stream'),
    setResponder(fn) {
      responder = fn;
    },
    enqueue(...replies) {
      queue.push(...replies);
    },
    waitForRequest: log.waitForRequest,
    close: () => net.close(server),
  };
}
