/** Declarations for koffi-stage.mjs (plain JavaScript, run by the build scripts). */
export declare function keepKoffiPath(rel: string, isDirectory: boolean): boolean;
export declare function stageKoffi(dir: string, prebuilts: string[]): void;
