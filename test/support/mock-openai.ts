// A loopback stand-in of the OpenAI Responses API for driving the real `codex` binary offline.
// codex 0.169.0 (pointed here by a `model_providers` entry with wire_api="responses", see
// codexHome() below) POSTs /v1/responses with `stream: true`: `input` is the conversation as
// items ({type:'message', role:'developer'|'user'|'assistant', content:[{type:'input_text',…}]},
// {type:'function_call', call_id, name, arguments}, {type:'function_call_output', call_id, output}),
// `tools` has exec_command {cmd, …}, write_stdin, …; it reads server-sent events:
//   response.created, response.output_item.added, response.output_text.delta,
//   response.output_item.done, response.completed {response:{usage}}.
// A function_call named exec_command makes codex run `cmd` (apply_patch heredocs become
// file_change items), then send the next request with its function_call_output.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { failRequest, Loopback, requestLog, sendJson } from './mock-http.js';

export interface OpenAiRequest {
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  kind: 'responses' | 'other';
  /** Text of the newest user message. */
  prompt: string;
  /** Developer/system instructions sent with the request (joined). */
  instructions: string;
  /** The request answers a function call (function_call_output items after the newest user message). */
  isToolResult: boolean;
  toolOutputs: { callId: string; output: string }[];
  /** Tool names offered to the model. */
  tools: string[];
  receivedAt: number;
}

export type OpenAiReply =
  /** Plain text, streamed in `chunks` deltas with `delayMs` before each. */
  | { text: string; chunks?: number; delayMs?: number }
  /** An exec_command function call (optionally preceded by text). */
  | { shell: { command: string }; text?: string }
  /** Any function call. */
  | { functionCall: { name: string; arguments: Record<string, unknown> }; text?: string }
  /** An HTTP error in OpenAI's shape (codex retries 5xx/429). */
  | { error: { status: number; message: string; type?: string } }
  /** Never answer. */
  | { hang: true };

export type OpenAiResponder = (req: OpenAiRequest) => OpenAiReply | undefined | Promise<OpenAiReply | undefined>;

export interface MockOpenAi {
  url: string;
  port: number;
  requests: OpenAiRequest[];
  /** POST /v1/responses requests only. */
  mainRequests(): OpenAiRequest[];
  setResponder(fn: OpenAiResponder | null): void;
  enqueue(...replies: OpenAiReply[]): void;
  waitForRequest(pred: (r: OpenAiRequest) => boolean, timeoutMs?: number): Promise<OpenAiRequest>;
  close(): Promise<void>;
}

/** The model named in the test config: one codex knows (an unknown one makes it warn on stdout). */
export const CODEX_TEST_MODEL = 'gpt-6.1-sol';
export const CODEX_TEST_KEY_ENV = 'KLAUDE_TEST_OPENAI_KEY';

/** An apply_patch heredoc (run through exec_command) that adds `file` with `lines`. */
export function applyPatchAddFile(file: string, lines: string[]): string {
  return `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${file}\n${lines.map((l) => `+${l}`).join('\n')}\n*** End Patch\nEOF`;
}

/**
 * Write `<dir>/config.toml` pointing codex at the stand-in; returns the dir (use it as CODEX_HOME,
 * with env `KLAUDE_TEST_OPENAI_KEY` set to anything).
 */
export function codexHome(dir: string, mockUrl: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'config.toml'),
    [
      `model = "${CODEX_TEST_MODEL}"`,
      'model_provider = "mock"',
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${mockUrl}/v1"`,
      'wire_api = "responses"',
      `env_key = "${CODEX_TEST_KEY_ENV}"`,
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  return dir;
}

export function defaultOpenAiReply(req: OpenAiRequest): OpenAiReply {
  return req.isToolResult ? { text: 'Tool finished.' } : { text: `Reply to: ${req.prompt}` };
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('')
      : '';

/** The recorded form of a /v1/responses body (exported for tests of the parser). */
export function parseResponsesBody(
  body: any,
): Pick<OpenAiRequest, 'prompt' | 'instructions' | 'isToolResult' | 'toolOutputs' | 'tools'> {
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  let lastUser = -1;
  for (let i = input.length - 1; i >= 0; i--) {
    if (input[i]?.type === 'message' && input[i]?.role === 'user') {
      lastUser = i;
      break;
    }
  }
  const after = input.slice(lastUser + 1);
  const toolOutputs = after
    .filter((it) => it?.type === 'function_call_output')
    .map((it) => ({
      callId: String(it.call_id ?? ''),
      output: typeof it.output === 'string' ? it.output : JSON.stringify(it.output),
    }));
  const instructions = [
    typeof body?.instructions === 'string' ? body.instructions : '',
    ...input
      .filter((it) => it?.type === 'message' && (it.role === 'developer' || it.role === 'system'))
      .map((it) => textOf(it.content)),
  ]
    .filter((s) => s)
    .join('\n');
  return {
    prompt: lastUser >= 0 ? textOf(input[lastUser].content).trim() : '',
    instructions,
    isToolResult: toolOutputs.length > 0,
    toolOutputs,
    tools: Array.isArray(body?.tools) ? body.tools.map((t: any) => String(t?.name ?? t?.type ?? '')) : [],
  };
}

let counter = 0;
const nextId = (p: string) => `${p}_mock${Date.now().toString(36)}${(++counter).toString(36)}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function split(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

export async function startMockOpenAi(
  opts: { responder?: OpenAiResponder; debug?: boolean } = {},
): Promise<MockOpenAi> {
  const queue: OpenAiReply[] = [];
  let responder = opts.responder ?? null;
  const net = new Loopback();
  const debug = opts.debug ?? process.env.MOCK_OPENAI_DEBUG === '1';

  const log = requestLog<OpenAiRequest>(
    'mock-openai',
    (r) => `${r.method} ${r.path} tool=${r.isToolResult} prompt=${JSON.stringify(r.prompt.slice(0, 80))}`,
    debug,
  );
  const { requests, record } = log;

  async function stream(
    req: OpenAiRequest,
    res: ServerResponse,
    reply: Exclude<OpenAiReply, { error: unknown } | { hang: true }>,
  ): Promise<void> {
    const id = nextId('resp');
    const model = req.body?.model ?? 'mock';
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const ev = (type: string, data: Record<string, unknown>) => {
      if (!res.destroyed) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    };
    ev('response.created', { response: { id, object: 'response', model, status: 'in_progress', output: [] } });
    let index = 0;
    const text = 'text' in reply ? reply.text : undefined;
    if (text !== undefined) {
      const msgId = nextId('msg');
      ev('response.output_item.added', {
        output_index: index,
        item: { type: 'message', id: msgId, role: 'assistant', status: 'in_progress', content: [] },
      });
      const chunks = 'chunks' in reply ? (reply.chunks ?? 1) : 1;
      const delayMs = 'delayMs' in reply ? (reply.delayMs ?? 0) : 0;
      for (const piece of split(text, chunks)) {
        if (delayMs > 0) await sleep(delayMs);
        ev('response.output_text.delta', { item_id: msgId, output_index: index, content_index: 0, delta: piece });
      }
      ev('response.output_item.done', {
        output_index: index,
        item: {
          type: 'message',
          id: msgId,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text, annotations: [] }],
        },
      });
      index++;
    }
    const call =
      'shell' in reply
        ? { name: 'exec_command', arguments: { cmd: reply.shell.command } }
        : 'functionCall' in reply
          ? reply.functionCall
          : null;
    if (call) {
      const item = {
        type: 'function_call',
        id: nextId('fc'),
        call_id: nextId('call'),
        name: call.name,
        arguments: JSON.stringify(call.arguments),
        status: 'completed',
      };
      ev('response.output_item.added', {
        output_index: index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      ev('response.output_item.done', { output_index: index, item });
    }
    const inputTokens = Math.max(1, Math.ceil(JSON.stringify(req.body?.input ?? '').length / 400));
    const outputTokens = Math.max(1, Math.ceil((text?.length ?? 0) / 4) + (call ? 10 : 0));
    ev('response.completed', {
      response: {
        id,
        object: 'response',
        model,
        status: 'completed',
        usage: {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: inputTokens + outputTokens,
        },
      },
    });
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
      const kind = method === 'POST' && path.split('?')[0]!.endsWith('/responses') ? 'responses' : 'other';
      const parsed =
        kind === 'responses'
          ? parseResponsesBody(body)
          : { prompt: '', instructions: '', isToolResult: false, toolOutputs: [], tools: [] };
      const rec: OpenAiRequest = {
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
      if (kind === 'other') {
        if (method === 'GET' && path.startsWith('/v1/models')) {
          sendJson(res, 200, { object: 'list', data: [] });
          return;
        }
        sendJson(res, 404, { error: { message: `Not found: ${method} ${path}`, type: 'invalid_request_error' } });
        return;
      }
      let reply = queue.shift();
      if (!reply && responder) reply = await responder(rec);
      if (!reply) reply = defaultOpenAiReply(rec);
      if ('hang' in reply) {
        net.hold(res);
        return;
      }
      if ('error' in reply) {
        sendJson(res, reply.error.status, {
          error: { message: reply.error.message, type: reply.error.type ?? 'server_error', code: null },
        });
        return;
      }
      await stream(rec, res, reply);
    })().catch((err) => failRequest(res, { error: { message: String(err?.message ?? err), type: 'server_error' } }));
  });
  const { url, port } = await net.listen(server);
  return {
    url,
    port,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === 'responses'),
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
