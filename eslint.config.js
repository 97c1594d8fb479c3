// Type-aware lint for the things tsc cannot see: promises nobody awaits, async callbacks
// handed to APIs that ignore the returned promise, and switches that miss a union member.
// House rules (layering, file size, who may import what) live in scripts/lint.mjs.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'drizzle/**', 'coverage/**', 'bench/**'] },
  {
    files: ['src/**/*.{ts,tsx}', 'scripts/*.mjs', 'test/**/*.{ts,tsx}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: { allowDefaultProject: ['scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // A function a reader can hold in mind: past 80 lines, split it by responsibility.
    files: ['src/**/*.{ts,tsx}'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }] },
  },
);
