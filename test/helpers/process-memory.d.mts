/** Declarations for process-memory.mjs (shared with `npm run bench`, which runs plain JavaScript). */
export declare function memoryMiB(pid: number): { rss: number; peak: number; anon: number; file: number };
export declare function treeRssMiB(pid: number): number;
/** `stop()` gives the peak, or NaN when the process itself has ended. */
export declare function sampleTreePeak(pid: number): { stop(): number };
/** The process and every process below it. */
export declare function tree(pid: number): number[];
/** Pss summed over the tree, MiB; null before Linux 4.14. */
export declare function treePssMiB(pid: number): number | null;
/** The tree's resident physical pages, each counted once, MiB; null where page frames are hidden (no CAP_SYS_ADMIN). */
export declare function treeUniqueMiB(pid: number): number | null;
