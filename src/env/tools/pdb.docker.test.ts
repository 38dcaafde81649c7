import { runPdbSuite } from '../testing/pdb-suite.ts';
import { providerTestEnvironment } from '../testing/provider-sandboxes.ts';

runPdbSuite(await providerTestEnvironment('docker'));
