/** The page's requests: JSON in and out, errors as the CLI's (code, message, hint). */
import { setLink } from './live-state.js';

export interface ApiError {
  code: string;
  message: string;
  hint?: string;
}

export class RequestFailed extends Error {
  constructor(
    readonly status: number,
    readonly error: ApiError,
    /** Seconds the server asks to wait before trying again (429). */
    readonly retryAfter = 0,
  ) {
    super(error.message);
  }
}

/** What a person reads when the server does not answer (stopped, or this device offline). */
export const NO_ANSWER = 'klaude web does not answer — reconnecting…';

/** The request got no answer at all: the server is stopped or this device is offline. */
export class NoAnswer extends Error {
  constructor() {
    super(NO_ANSWER);
  }
}

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    setLink('down');
    throw new NoAnswer();
  }
  const data = (await res.json().catch(() => ({}))) as { result?: T; error?: ApiError };
  if (!res.ok) {
    const error = data.error ?? { code: `HTTP_${res.status}`, message: res.statusText };
    // Any action refused as "not signed in" (e.g. after `klaude web --rotate-token`): this page is signed out.
    if (res.status === 401 && error.code === 'E_WEB_AUTH') setLink('signed-out');
    throw new RequestFailed(res.status, error, Number(res.headers.get('Retry-After')) || 0);
  }
  return (data.result ?? data) as T;
}

export const api = {
  get: <T>(url: string): Promise<T> => call<T>('GET', url),
  post: <T>(url: string, body: unknown = {}): Promise<T> => call<T>('POST', url, body),
};

/** Why a sign-in failed: the server's problem, or null when it simply says "not signed in". */
export type SignInResult = { ok: true } | { ok: false; problem: unknown };

/**
 * Sign in with the one-time link token from the URL's fragment (never sent to the server as part
 * of a URL; removed from the address bar at once). A page already signed in stays so when its
 * link was spent. Called on load and whenever a new `#token=` is pasted into the same tab.
 */
export async function signIn(): Promise<SignInResult> {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  let failed: unknown = null;
  if (m) {
    history.replaceState(null, '', location.pathname);
    failed = await redeem(m[1]!);
  }
  try {
    await api.get('/api/me');
    return { ok: true };
  } catch (e) {
    // No answer at all (the offline shell, served by the service worker): not a sign-in problem.
    if (e instanceof NoAnswer) return { ok: false, problem: e };
    return { ok: false, problem: failed };
  }
}

/**
 * Spend a link: null once signed in, else the refusal. Right after a wrong link the server asks to
 * wait a moment (429 with Retry-After): a good link pasted then is tried again after that wait.
 */
async function redeem(token: string): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    try {
      await api.post('/api/login', { token });
      return null;
    } catch (e) {
      if (!(e instanceof RequestFailed && e.status === 429 && attempt < 3)) return e;
      await new Promise((r) => setTimeout(r, Math.min(10, Math.max(1, e.retryAfter)) * 1000));
    }
  }
}

/** The error's code (E_…), for a tooltip or a small muted suffix, never the sentence itself. */
export function codeOf(e: unknown): string | null {
  return e instanceof RequestFailed ? e.error.code : null;
}

/**
 * One sentence for a person: the server's message and hint (the CLI's words; `backticks` mark
 * commands, which `<Rich>` renders as code), without the error code. A request that got no answer
 * says so plainly instead of the browser's "Failed to fetch".
 */
export function describe(e: unknown): string {
  if (e instanceof RequestFailed) return `${e.error.message}${e.error.hint ? ` — ${e.error.hint}` : ''}`;
  if (e instanceof NoAnswer || e instanceof TypeError) return NO_ANSWER;
  return e instanceof Error ? e.message : String(e);
}
