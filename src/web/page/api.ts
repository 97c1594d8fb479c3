/** The page's requests: JSON in and out, errors as the CLI's (code, message, hint). */
export interface ApiError {
  code: string;
  message: string;
  hint?: string;
}

export class RequestFailed extends Error {
  constructor(
    readonly status: number,
    readonly error: ApiError,
  ) {
    super(error.message);
  }
}

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await res.json().catch(() => ({}))) as { result?: T; error?: ApiError };
  if (!res.ok)
    throw new RequestFailed(res.status, data.error ?? { code: `HTTP_${res.status}`, message: res.statusText });
  return (data.result ?? data) as T;
}

export const api = {
  get: <T>(url: string): Promise<T> => call<T>('GET', url),
  post: <T>(url: string, body: unknown = {}): Promise<T> => call<T>('POST', url, body),
};

/**
 * Sign in with the one-time link token from the URL's fragment (never sent to the server as part
 * of a URL). Signed in: null; else why not (a spent link says so, with how to get a fresh one).
 * A page already signed in stays so when its link was spent.
 */
export async function signIn(): Promise<string | null> {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  let failed: string | null = null;
  if (m) {
    history.replaceState(null, '', location.pathname);
    try {
      await api.post('/api/login', { token: m[1] });
    } catch (e) {
      failed = describe(e);
    }
  }
  try {
    await api.get('/api/me');
    return null;
  } catch (e) {
    // No answer at all (the offline shell, served by the service worker): not a sign-in problem.
    if (!(e instanceof RequestFailed)) return UNREACHABLE;
    return failed ?? 'not signed in';
  }
}

/** signIn's answer when the server does not answer (stopped, or this device is offline). */
export const UNREACHABLE = 'unreachable';

export function describe(e: unknown): string {
  if (e instanceof RequestFailed)
    return `${e.error.message}${e.error.hint ? ` — ${e.error.hint}` : ''} [${e.error.code}]`;
  return e instanceof Error ? e.message : String(e);
}
