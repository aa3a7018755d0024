import { defineCommand } from 'citty';
import { API_VERSION, BUILD, COMMIT, VERSION } from '../../config/version';
import { printData } from '../output';

/** `localsign version` (also `--version`): what `/health` reports, without a running service. */
export const versionCommand = defineCommand({
  meta: { name: 'version', description: 'Print the version, build commit and api_version' },
  args: { json: { type: 'boolean', description: 'Machine-readable output' } },
  run({ args }) {
    printData(Boolean(args.json), { version: VERSION, commit: COMMIT, api_version: API_VERSION, build: BUILD }, () => `localsign ${VERSION} (commit ${COMMIT}, api_version ${API_VERSION}${BUILD === 'release' ? '' : `, ${BUILD} build`})`);
  },
});
