// CI runners set CI=true (and CI_* variables). With them, Ink renders non-interactively (is-in-ci)
// and the real claude's TUI drops its colours (supports-color), so tests that stand in for a
// person's terminal would check something no person sees. Clear them before any test module loads;
// children started by the tests inherit the cleaned environment.
for (const key of Object.keys(process.env)) {
  if (
    key === 'CI' ||
    key === 'CONTINUOUS_INTEGRATION' ||
    key === 'BUILD_NUMBER' ||
    key === 'RUN_ID' ||
    key.startsWith('CI_')
  ) {
    delete process.env[key];
  }
}
