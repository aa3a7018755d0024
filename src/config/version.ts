/** Stamped by build/bundle.mjs through esbuild `define`; "unknown" when running from source outside a build. */
declare const __LOCALSIGN_COMMIT__: string | undefined;
declare const __LOCALSIGN_BUNDLED__: boolean | undefined;
declare const __LOCALSIGN_TEST_BUILD__: boolean | undefined;

export const SERVICE_NAME = 'local-signing-service';
export const VERSION = '0.2.0';
/** spec §9: api_version 2 from 0.2.0 on (adds /v1/sync, /v1/results, /v1/errors). */
export const API_VERSION = 2;
export const COMMIT: string = typeof __LOCALSIGN_COMMIT__ === 'string' ? __LOCALSIGN_COMMIT__ : 'unknown';
export const BUNDLED: boolean = typeof __LOCALSIGN_BUNDLED__ === 'boolean' ? __LOCALSIGN_BUNDLED__ : false;
/**
 * Which build runs: `release` (npm run build, the single executables, the packages), `test`
 * (npm test's build, which keeps the crash-test switches), or `source` (tests from TypeScript).
 */
export const BUILD: 'release' | 'test' | 'source' = !BUNDLED ? 'source' : typeof __LOCALSIGN_TEST_BUILD__ === 'boolean' && __LOCALSIGN_TEST_BUILD__ ? 'test' : 'release';

/** The version line of `--version`: the commit, and the build when it is not a release one. */
export function versionLine(): string {
  return `${VERSION} (${COMMIT}${BUILD === 'release' ? '' : `, ${BUILD} build`})`;
}
