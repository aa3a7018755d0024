import type { WrapperRecord } from '../store/catalog-types';
import type { BodyShare } from './middleware/body-memory';

/** hono Env: what middleware puts on the context for routes (hono's src/types.ts pattern). */
export interface ApiEnv {
  Variables: {
    wrapper: WrapperRecord;
    /** Longest silence while a body is read (serve --body-timeout); set for every request. */
    bodyTimeoutMs: number;
    /** This request's share of the memory budget for request bodies (middleware/body-memory.ts). */
    bodyShare: BodyShare;
  };
}
