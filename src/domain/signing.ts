/** Who makes a credential's signatures (PLATFORM.md `engine`): this machine's chip, or the remote platform. */
export type EngineName = 'chip' | 'platform';
