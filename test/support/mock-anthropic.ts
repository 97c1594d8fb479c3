// A loopback stand-in of the Anthropic Messages API for driving the real `claude` binary offline.
// See docs/cli-facts.md §0: claude POSTs /v1/messages?beta=true with stream:true and reads SSE.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Loopback, requestLog } from './mock-http.js';

export interface ToolResult {
  toolUseId: string;
  /** The tool_result content flattened to text. */
  content: string;
  isError: boolean;
}

export interface RecordedImage {
  mediaType: string;
  /** The image's bytes, decoded from the block's base64 data. */
  bytes: Buffer;
}

export interface RecordedRequest {
  /** Index in `requests` (arrival order). */
  index: number;
  method: string;
  /** URL path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when there is none or it is not JSON). */
  body: any;
  kind: 'messages' | 'count_tokens' | 'other';
  /** Text of the newest `user` message, `<system-reminder>` blocks stripped. */
  prompt: string;
  /** The newest `user` message carries tool_result blocks. */
  isToolResult: boolean;
  /** Image blocks of the newest `user` message (base64 sources), in order. */
  images: RecordedImage[];
  toolResults: ToolResult[];
  /** Not a main-conversation turn (title/topic generation etc.); never consumes the script. */
  isSideRequest: boolean;
  stream: boolean;
  receivedAt: number;
}

/**
 * One scripted answer to a main request. Note: claude retries 429/5xx/529 errors (up to 10 times, with
 * backoff; `system/api_retry` lines in stream-json), and each retry is a new main request that takes the
 * next reply; 4xx errors other than 429 end the turn at once (`result.is_error`, `api_error_status`).
 */
export type Reply =
  /**
   * Plain text; with chunks/delayMs it is streamed as `chunks` deltas with `delayMs` before each.
   * The interactive TUI shows streamed text a complete line at a time: put newlines in slow replies.
   */
  | { text: string; chunks?: number; delayMs?: number }
  /** A `Bash` tool_use block (optionally preceded by text); stop_reason tool_use. */
  | { bash: { command: string; description?: string; timeout?: number; run_in_background?: boolean }; text?: string }
  /** Any tool_use block (optionally preceded by text); stop_reason tool_use. */
  | { toolUse: { name: string; input: Record<string, unknown> }; text?: string }
  /** An HTTP error in the real API's shape: {type:'error', error:{type, message}}. */
  | { error: { status: number; type: string; message: string } }
  /** Never answer (until the client goes away or the server closes). */
  | { hang: true };

export type Responder = (req: RecordedRequest) => Reply | undefined | Promise<Reply | undefined>;

export interface MockAnthropicOptions {
  /** Initial responder for main requests (used when the FIFO is empty). */
  responder?: Responder;
  /** Model name reported in responses when the request names none. */
  model?: string;
  /** Log every request to stderr (debugging; also env MOCK_ANTHROPIC_DEBUG=1). */
  debug?: boolean;
  /** Address to listen on (default 127.0.0.1): a zone test's veth address, so a network namespace reaches it. */
  host?: string;
  /** Override the side-request classification (default: isSideRequestBody). */
  isSideRequest?: (body: any) => boolean;
}

export interface MockAnthropic {
  url: string;
  port: number;
  /** Every request in arrival order (main, side, count_tokens, HEAD, unknown). */
  requests: RecordedRequest[];
  /** Main (non-side) /v1/messages requests only. */
  mainRequests(): RecordedRequest[];
  setResponder(fn: Responder | null): void;
  /** Queue replies for the next main requests (FIFO, consumed before the responder). */
  enqueue(...replies: Reply[]): void;
  /** How many enqueued replies are still unused. */
  queued(): number;
  /**
   * Resolves with the first request (already recorded or future) matching pred; rejects after timeoutMs
   * (default 30 000) listing what did arrive. Use `r.index >= n` in pred to look only at newer ones.
   */
  waitForRequest(pred: (req: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

/** The default answer for a main request when neither the FIFO nor the responder gives one. */
export function defaultReply(req: RecordedRequest): Reply {
  return req.isToolResult ? { text: 'Tool finished.' } : { text: `Reply to: ${req.prompt}` };
}

const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

function flattenContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: any) => {
      if (typeof b === 'string') return b;
      if (b?.type === 'text' && typeof b.text === 'string') return b.text;
      if (b?.type === 'tool_result') return flattenContent(b.content);
      return '';
    })
    .join('');
}

function systemText(system: unknown): string {
  return typeof system === 'string' ? system : flattenContent(system);
}

/** Build the recorded form of a request body (exported for unit tests of the parser). */
export function parseMessagesBody(
  body: any,
  isSide: (body: any) => boolean = isSideRequestBody,
): Pick<RecordedRequest, 'prompt' | 'isToolResult' | 'toolResults' | 'isSideRequest' | 'stream' | 'images'> {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  let lastUser: any;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      lastUser = messages[i];
      break;
    }
  }
  const blocks: any[] = Array.isArray(lastUser?.content) ? lastUser.content : [];
  const toolResults: ToolResult[] = blocks
    .filter((b) => b?.type === 'tool_result')
    .map((b) => ({
      toolUseId: String(b.tool_use_id ?? ''),
      content: flattenContent(b.content),
      isError: b.is_error === true,
    }));
  const textOnly =
    typeof lastUser?.content === 'string'
      ? lastUser.content
      : blocks
          .filter((b) => b?.type === 'text')
          .map((b) => String(b.text))
          .join('\n');
  const prompt = textOnly.replace(SYSTEM_REMINDER, '').trim();
  const images: RecordedImage[] = blocks
    .filter((b) => b?.type === 'image' && b.source?.type === 'base64')
    .map((b) => ({ mediaType: String(b.source.media_type), bytes: Buffer.from(String(b.source.data), 'base64') }));
  return {
    prompt,
    images,
    isToolResult: toolResults.length > 0,
    toolResults,
    isSideRequest: isSide(body),
    stream: body?.stream === true,
  };
}

/**
 * What claude 2.1.197 sends (seen against this stand-in):
 * - main turns (the conversation, `-p` or TUI, and sub-agents): the tool list plus the Claude Code
 *   system prompt ("You are an interactive agent that helps users with software engineering tasks");
 * - side requests, e.g. the TUI's session title after the first prompt: model claude-haiku-*, no tools,
 *   `output_config.format` = a json_schema (`{title}`), a short task-specific system prompt.
 */
export function isSideRequestBody(body: any): boolean {
  if (body?.output_config?.format) return true;
  if (Array.isArray(body?.tools) && body.tools.length > 0) return false;
  return !/You are an interactive agent/i.test(systemText(body?.system));
}

let idCounter = 0;
const nextId = (prefix: string) => `${prefix}_mock${Date.now().toString(36)}${(++idCounter).toString(36)}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function splitText(text: string, chunks: number): string[] {
  const n = Math.max(1, Math.min(chunks, text.length || 1));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

type Block =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function replyBlocks(reply: Exclude<Reply, { error: unknown } | { hang: true }>): Block[] {
  if ('bash' in reply) {
    const input: Record<string, unknown> = { ...reply.bash, description: reply.bash.description ?? 'Run a command' };
    const blocks: Block[] = reply.text ? [{ type: 'text', text: reply.text }] : [];
    return [...blocks, { type: 'tool_use', id: nextId('toolu'), name: 'Bash', input }];
  }
  if ('toolUse' in reply) {
    const blocks: Block[] = reply.text ? [{ type: 'text', text: reply.text }] : [];
    return [...blocks, { type: 'tool_use', id: nextId('toolu'), name: reply.toolUse.name, input: reply.toolUse.input }];
  }
  return [{ type: 'text', text: reply.text }];
}

function estimateTokens(body: any): number {
  return Math.max(1, Math.ceil(JSON.stringify(body?.messages ?? '').length / 4));
}

export async function startMockAnthropic(opts: MockAnthropicOptions = {}): Promise<MockAnthropic> {
  const queue: Reply[] = [];
  let responder: Responder | null = opts.responder ?? null;
  const net = new Loopback();
  const debug = opts.debug ?? process.env.MOCK_ANTHROPIC_DEBUG === '1';

  const log = requestLog<RecordedRequest>(
    'mock-anthropic',
    (r) => `${r.method} ${r.path} side=${r.isSideRequest} prompt=${JSON.stringify(r.prompt.slice(0, 80))}`,
    debug,
  );
  const { requests, record } = log;

  const sendJson = (res: ServerResponse, status: number, obj: unknown) => {
    const data = JSON.stringify(obj);
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': nextId('req') });
    res.end(data);
  };

  const writeEvent = (res: ServerResponse, event: string, data: unknown) => {
    if (!res.writableEnded && !res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };

  async function answer(req: RecordedRequest, res: ServerResponse, reply: Reply): Promise<void> {
    if ('hang' in reply) {
      net.hold(res);
      return; // never answer
    }
    if ('error' in reply) {
      sendJson(res, reply.error.status, {
        type: 'error',
        error: { type: reply.error.type, message: reply.error.message },
      });
      return;
    }
    const model = req.body?.model ?? opts.model ?? 'claude-mock';
    const blocks = replyBlocks(reply);
    const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const inputTokens = estimateTokens(req.body);
    const outputTokens = Math.max(1, Math.ceil(JSON.stringify(blocks).length / 4));
    const id = nextId('msg');
    if (!req.stream) {
      sendJson(res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: blocks,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: {
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      });
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': nextId('req'),
    });
    writeEvent(res, 'message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: inputTokens,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    });
    const chunks = 'chunks' in reply ? reply.chunks : undefined;
    const delayMs = 'delayMs' in reply ? (reply.delayMs ?? 0) : 0;
    for (const [index, block] of blocks.entries()) {
      if (block.type === 'text') {
        writeEvent(res, 'content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        });
        for (const piece of splitText(block.text, chunks ?? 1)) {
          if (delayMs > 0) await sleep(delayMs);
          if (res.destroyed) return;
          writeEvent(res, 'content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'text_delta', text: piece },
          });
        }
      } else {
        writeEvent(res, 'content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        writeEvent(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        });
      }
      writeEvent(res, 'content_block_stop', { type: 'content_block_stop', index });
    }
    writeEvent(res, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
    writeEvent(res, 'message_stop', { type: 'message_stop' });
    res.end();
  }

  async function handle(inReq: IncomingMessage, res: ServerResponse): Promise<void> {
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
    const pathname = path.split('?')[0] ?? '/';
    const method = inReq.method ?? 'GET';
    const kind: RecordedRequest['kind'] =
      method === 'POST' && pathname === '/v1/messages'
        ? 'messages'
        : method === 'POST' && pathname === '/v1/messages/count_tokens'
          ? 'count_tokens'
          : 'other';
    const parsed =
      kind === 'messages'
        ? parseMessagesBody(body, opts.isSideRequest)
        : {
            prompt: '',
            isToolResult: false,
            toolResults: [],
            images: [],
            isSideRequest: kind !== 'other',
            stream: false,
          };
    const rec: RecordedRequest = {
      index: requests.length,
      method,
      path,
      headers: inReq.headers,
      body,
      kind,
      ...parsed,
      receivedAt: Date.now(),
    };
    record(rec);

    if (kind === 'count_tokens') return sendJson(res, 200, { input_tokens: estimateTokens(body) });
    if (kind === 'other') {
      if (method === 'HEAD' || (method === 'GET' && pathname === '/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(method === 'HEAD' ? undefined : '{}');
        return;
      }
      return sendJson(res, 404, {
        type: 'error',
        error: { type: 'not_found_error', message: `Not found: ${method} ${pathname}` },
      });
    }
    let reply: Reply | undefined;
    if (rec.isSideRequest) {
      reply = { text: sideRequestAnswer(body) };
    } else {
      reply = queue.shift();
      if (!reply && responder) reply = await responder(rec);
      if (!reply) reply = defaultReply(rec);
    }
    await answer(rec, res, reply);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent)
        sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: String(err?.message ?? err) } });
      else res.destroy();
    });
  });
  const { url, port } = await net.listen(server, opts.host);

  return {
    url,
    port,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === 'messages' && !r.isSideRequest),
    setResponder(fn) {
      responder = fn;
    },
    enqueue(...replies) {
      queue.push(...replies);
    },
    queued: () => queue.length,
    waitForRequest: log.waitForRequest,
    close: () => net.close(server),
  };
}

/** A harmless answer for side requests: an object fitting the requested json_schema, else plain text. */
export function sideRequestAnswer(body: any): string {
  const format = body?.output_config?.format;
  if (format?.type === 'json_schema' && format.schema) return JSON.stringify(sampleFor(format.schema));
  if (format) return JSON.stringify({ title: 'Mock session' });
  return 'Mock session';
}

function sampleFor(schema: any): unknown {
  switch (schema?.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries<any>(schema.properties ?? {})) out[k] = sampleFor(v);
      return out;
    }
    case 'array':
      return [];
    case 'boolean':
      return false;
    case 'number':
    case 'integer':
      return 0;
    case 'string':
      return Array.isArray(schema.enum) && schema.enum.length ? schema.enum[0] : 'Mock session';
    default:
      return Array.isArray(schema?.enum) && schema.enum.length ? schema.enum[0] : null;
  }
}
