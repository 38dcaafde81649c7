import { runPdbSuite } from '../testing/pdb-suite.ts';
import { localTestEnvironment } from '../testing/provider-sandboxes.ts';

runPdbSuite(await localTestEnvironment());
