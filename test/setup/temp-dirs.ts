import { afterAll } from 'vitest';
import { removeTempDirs } from '../helpers/temp-dir';

// Each test file's temporary folders go when its tests are over, whatever their outcome.
afterAll(removeTempDirs);
