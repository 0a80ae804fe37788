export { parseCsv } from '../../harness/testing.js';
