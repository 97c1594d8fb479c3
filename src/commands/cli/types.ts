/** What every subcommand receives. Commands parse → call a service → print. */
export type FlagType = 'string' | 'boolean' | 'number';

/**
 * What a positional argument or a flag's value is, for shell completion (`klaude completion`):
 * session ids of this project (all listed ones, those waiting for a permission answer, those
 * mid-turn or queued), agent types, runtimes, files, fixed words, or free text (nothing offered).
 */
export type Completes =
  'session' | 'session:waiting' | 'session:active' | 'agent-type' | 'runtime' | 'file' | 'text' | readonly string[];

export interface FlagSpec {
  type: FlagType;
  /** What its value completes to (a string or number flag); nothing offered when absent. */
  completes?: Completes;
  shortFlag?: string;
  default?: string | boolean | number;
  isMultiple?: boolean;
  description: string;
  /** Placeholder in help, e.g. `<seconds>`. */
  valueName?: string;
}

export type Flags = Record<string, string | boolean | number | string[] | number[] | undefined>;

export interface CommandContext {
  /** Positional arguments after the command name (and after flags). */
  input: string[];
  /** Arguments after a literal `--`, passed through untouched. */
  passthrough: string[];
  flags: Flags;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export interface CommandModule {
  /** Returns the exit code (0 when undefined). */
  run(ctx: CommandContext): Promise<number | void>;
}

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  description?: string;
  flags: Record<string, FlagSpec>;
  examples?: string[];
  /** Shown under "Plumbing" in the overview (called by Claude Code, not people). */
  plumbing?: boolean;
  /** `--` ends this command's own arguments: what follows goes to claude (`klaude`, `klaude ui`). */
  passthrough?: boolean;
  /** Positional argument count bounds (checked before the module loads). */
  minArgs?: number;
  maxArgs?: number;
  /**
   * What each positional completes to, in order; with no maxArgs the last one repeats (`<id…>`).
   * Absent: nothing is offered for positionals.
   */
  operands?: readonly Completes[];
  /** Words naming an action (`queue move`, `zone add`): `--help` right after one still asks for help. */
  subcommands?: readonly string[];
  load: () => Promise<CommandModule>;
}
