/** Declarations for process-memory.mjs (shared with `npm run bench`, which runs plain JavaScript). */
export declare function memoryMiB(pid: number): { rss: number; peak: number; anon: number; file: number };
export declare function treeRssMiB(pid: number): number;
/** `stop()` gives the peak, or NaN when the process itself has ended. */
export declare function sampleTreePeak(pid: number): { stop(): number };
