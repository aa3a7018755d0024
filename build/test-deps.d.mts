/** Declarations for test-deps.mjs (run by .ci/run and npm scripts as plain JavaScript). */
export interface TestPackage {
  name: string;
  suite: 'test' | 'windows' | 'macos';
  provides: string[];
  why: string;
}
export interface MissingTool {
  tool: string;
  package: string;
}
export declare const TEST_PACKAGES: TestPackage[];
export declare const INSTALL_COMMAND: string;
export declare function missingTools(suite?: 'all' | 'test' | 'windows' | 'macos', path?: string): MissingTool[];
export declare function missingToolLine(missing: MissingTool[]): string | null;
