/** Wait until `fn` holds (checked every 10 ms), or fail naming `what` after `ms`. */
export async function until(what: string, fn: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
