/**
 * Resolves when Ink's layout engine (yoga, WebAssembly) is loaded. Run from source (ES modules),
 * yoga-layout loads itself before Ink can import it (a top-level await): resolved already. The
 * build makes the dashboard a CommonJS bundle, which cannot await at its top level, and puts the
 * engine's load here instead (scripts/build.mjs, ink-in-commonjs): the dashboard awaits this
 * before Ink lays anything out.
 */
export const yogaLoaded: Promise<void> = Promise.resolve();
