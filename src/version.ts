/** sandgym's version, written into every trajectory and run directory. Kept equal to package.json's by a test. */
export const VERSION = '0.1.0';
