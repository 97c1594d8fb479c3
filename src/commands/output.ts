/**
 * `klaude sessions | head`, `klaude logs -f … | grep -m1 …`: when the reader of our stdout goes
 * away, stop quietly with exit 0 instead of crashing on an unhandled EPIPE.
 */
export function exitQuietlyOnBrokenPipe(stream: NodeJS.WritableStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
