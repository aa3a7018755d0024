/** Declarations for tools.mjs (plain JavaScript, run by the build scripts), as far as tests use it. */
export declare const NODE_VERSION: string;
export declare const MAC_RUNTIMES: Record<'arm64' | 'x64', { pkg: string; version: string }>;
export declare const TOOLS_DIR: string;
export declare const NODE_BINARIES: Record<string, { inner: string; sha256: string }>;
export declare const TOOL_PACKAGES: Record<string, string>;
export declare function sha256File(path: string): string;
export declare function toolPackage(spec: string): string;
export declare function koffiPrebuilt(target: string): string;
