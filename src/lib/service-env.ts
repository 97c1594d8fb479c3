/**
 * The environment of a long-lived klaude process started on a caller's behalf (the web server, a
 * zone's link): the caller's (ssh needs its SSH_AUTH_SOCK, HOME, PATH), with the home it serves,
 * and without the variables that say "inside a Claude / a klaude session" — it serves every caller.
 */
const SESSION_MARKS = [
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'KLAUDE_SESSION_ID',
  'KLAUDE_SOCKET',
  'KLAUDE_PROJECT_HASH',
  'KLAUDE_INSTANCE_ID',
  'KLAUDE_SWITCHED_FROM',
];

export function serviceEnv(env: NodeJS.ProcessEnv, home: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, KLAUDE_HOME: home };
  for (const k of SESSION_MARKS) delete out[k];
  return out;
}
