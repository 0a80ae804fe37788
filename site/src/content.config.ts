import { defineCollection } from 'astro:content';
import { runFilesLoader } from './loaders/run-files-loader.js';

export const collections = {
  runs: defineCollection({ loader: runFilesLoader('runs') }),
  cells: defineCollection({ loader: runFilesLoader('cells') }),
};
