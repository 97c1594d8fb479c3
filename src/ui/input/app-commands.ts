/** The App commands: help, suspend, quit (asking first while agents or PTY sessions run). */
import type { CommandIn } from '../keymap.js';
import type { CommandEnv } from './command-env.js';

export function runAppCommand(id: CommandIn<'App'>, env: CommandEnv): void {
  switch (id) {
    case 'app.suspend':
      return env.actions.suspend();
    case 'app.help':
      return env.dispatch({ type: 'openHelp' });
    case 'app.quit':
      return quit(env);
  }
}

function quit(env: CommandEnv): void {
  const { tree, actions, dispatch } = env;
  const n = tree.ctx.runningAgents;
  const p = tree.ctx.ptySessions;
  if (n === 0 && p === 0) return actions.quit();
  const parts: string[] = [];
  if (n > 0)
    parts.push(
      `${n} agent${n === 1 ? ' is' : 's are'} still working. ${n === 1 ? 'It keeps' : 'They keep'} running after the dashboard quits (klaude ui or klaude sessions finds them again).`,
    );
  if (p > 0) {
    parts.push(
      `${p} PTY session${p === 1 ? '' : 's'} ${p === 1 ? 'is' : 'are'} running. They keep running too: they are their own processes (klaude talk <id> attaches, klaude ui shows them; their conversations stay resumable).`,
    );
  }
  return dispatch({
    type: 'confirm',
    intent: { kind: 'quit', ptySessions: p },
    message: `${parts.join(' ')} Quit?${p > 0 ? ` (x: stop the PTY session${p === 1 ? '' : 's'} and quit)` : ''}`,
    dangerous: false,
  });
}
