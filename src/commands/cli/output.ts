import { fstatSync, writeSync } from 'node:fs';

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

type WriteCallback = (err?: Error | null) => void;

/**
 * The commands' stdout. On a terminal (or anything but a pipe, socket or file) it is node's
 * stream. Into a pipe or a file, writes go to fd 1 with writeSync, and node's stream is made only
 * when a command uses more of it than `write`: for a pipe that stream is a net.Socket, whose
 * loading (net, streams, a dozen modules) was about 4 % of a `klaude sessions` in Claude's Bash
 * tool. A full pipe (EAGAIN: its other end was made non-blocking by a process sharing it) hands
 * the rest to the stream, and every later write goes there too, in order. A reader gone (EPIPE)
 * ends the command quietly, as exitQuietlyOnBrokenPipe does.
 */
export function commandStdout(): NodeJS.WriteStream {
  let direct = false;
  try {
    const st = fstatSync(1);
    direct = st.isFIFO() || st.isSocket() || st.isFile();
  } catch {
    direct = false;
  }
  let stream: NodeJS.WriteStream | undefined;
  const real = (): NodeJS.WriteStream => {
    if (!stream) {
      stream = process.stdout;
      exitQuietlyOnBrokenPipe(stream);
    }
    return stream;
  };
  if (!direct) return real();
  const write = (
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | WriteCallback,
    cb?: WriteCallback,
  ): boolean => {
    const done = typeof encoding === 'function' ? encoding : cb;
    if (stream) return stream.write(chunk, done);
    const buf =
      typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : chunk;
    let at = 0;
    try {
      while (at < buf.length) at += writeSync(1, buf, at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') process.exit(0);
      if (code !== 'EAGAIN') throw e;
      return real().write(buf.subarray(at), done);
    }
    if (done) process.nextTick(done);
    return true;
  };
  return new Proxy({} as NodeJS.WriteStream, {
    get(_, key) {
      if (key === 'write') return write;
      if (key === 'isTTY') return false;
      if (key === 'fd') return 1;
      const s = real();
      const v: unknown = Reflect.get(s, key, s);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(s) : v;
    },
    set(_, key, value) {
      return Reflect.set(real(), key, value);
    },
    has(_, key) {
      return key in real();
    },
  });
}
