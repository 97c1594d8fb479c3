/**
 * Which CLI runs an agent: `--runtime` > the agent definition's `runtime:` > what the model name
 * implies > config `agents.defaultRuntime`. Pure.
 *
 * Model names: `gpt-*`, `o<digit>…`, `codex*` → codex; `gemini-*` → gemini; `claude-*`, `sonnet`,
 * `opus`, `haiku` → claude; `provider/model` (opencode's form) → opencode.
 * The config's default model (`agents.model`) is only used when it fits the chosen runtime: a
 * `sonnet` default must not be handed to codex.
 */
import { RUNTIMES, type RuntimeName } from '../config/schema.js';
import { didYouMean } from '../lib/closest.js';
import { KlaudeError } from '../lib/errors.js';

export type RuntimeReason = 'flag' | 'definition' | 'model' | 'config';

export interface RuntimeChoice {
  runtime: RuntimeName;
  /** The model to pass to the CLI (null: the CLI's default). */
  model: string | null;
  /** What decided the runtime. */
  reason: RuntimeReason;
}

/** The runtime a model name belongs to, or null when the name says nothing. */
export function runtimeForModel(model: string | null | undefined): RuntimeName | null {
  const m = model?.trim().toLowerCase();
  if (!m) return null;
  if (m.includes('/')) return 'opencode';
  if (/^(gpt-|codex)/.test(m) || /^o\d/.test(m)) return 'codex';
  if (m.startsWith('gemini-')) return 'gemini';
  if (/^claude-/.test(m) || /^(sonnet|opus|haiku)(\b|$)/.test(m)) return 'claude';
  return null;
}

export function parseRuntime(name: string): RuntimeName {
  const n = name.trim().toLowerCase();
  if ((RUNTIMES as readonly string[]).includes(n)) return n as RuntimeName;
  throw new KlaudeError('E_USAGE', `unknown runtime '${name}'`, {
    hint: `${didYouMean(n, RUNTIMES)}runtimes: ${RUNTIMES.join(', ')}`,
  });
}

export function chooseRuntime(o: {
  /** `--runtime`. */
  flag?: string | null;
  /** The agent definition's `runtime:`. */
  definition?: RuntimeName | null;
  /** The model asked for by `--model` or the definition. */
  model?: string | null;
  /** config `agents.model`. */
  configModel?: string | null;
  /** config `agents.defaultRuntime`. */
  configDefault: RuntimeName;
}): RuntimeChoice {
  const explicit = o.model?.trim() || null;
  const fallback = o.configModel?.trim() || null;
  const pick = (runtime: RuntimeName, reason: RuntimeReason): RuntimeChoice => {
    const fromConfig = explicit ? null : fallback;
    const fits = fromConfig !== null && (runtimeForModel(fromConfig) ?? runtime) === runtime;
    return { runtime, model: explicit ?? (fits ? fromConfig : null), reason };
  };
  if (o.flag) return pick(parseRuntime(o.flag), 'flag');
  if (o.definition) return pick(o.definition, 'definition');
  const byModel = runtimeForModel(explicit ?? fallback);
  if (byModel) return pick(byModel, 'model');
  return pick(o.configDefault, 'config');
}
