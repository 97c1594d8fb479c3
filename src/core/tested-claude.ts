/**
 * The Claude Code releases klaude's suites ran against: the devDependency pin in package.json
 * (`@anthropic-ai/claude-code`, the whole suite) first, then the current release CI also runs the
 * end-to-end and runtime suites with. `klaude doctor` names a claude outside this list as untested
 * (a warning, not a failure). When the pin or CI's second version changes, change this list with it
 * (test/unit/tested-claude.test.ts holds the pin to it).
 */
export const TESTED_CLAUDE_VERSIONS: readonly string[] = ['2.1.197', '2.1.332'];

export const isTestedClaudeVersion = (version: string): boolean => TESTED_CLAUDE_VERSIONS.includes(version);
