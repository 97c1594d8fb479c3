// Types for scripts/import-graph.mjs (a plain script so `node scripts/lint.mjs` needs no build).
export const LAYERS: readonly string[];
export function sourceFiles(dir: string): string[];
export function importsOf(text: string): string[];
export function layerOf(file: string, root?: string): string | undefined;
export interface FolderEdge {
  from: string;
  to: string;
  file: string;
  spec: string;
}
export function folderEdges(root?: string): FolderEdge[];
export function findCycle(edges: readonly { from: string; to: string }[]): string[] | undefined;
export function fileEdges(root?: string): { from: string; to: string }[];
export function fileCircles(edges: readonly { from: string; to: string }[]): string[][];
export const ROLE_NAMES: ReadonlyMap<string, string>;
export function crowdedNames(root?: string): [string, string[]][];
