// Types of eslint.layers.js, for the tests that read the table.
import type { Linter } from 'eslint';

/** A folder under src/ and the folders it may import besides its own. */
export interface Layer {
  readonly folder: string;
  readonly name: string;
  readonly may: readonly string[];
}

export declare const LAYERS: readonly Layer[];
export declare const PRIVATE_FOLDERS: readonly {
  readonly folder: string;
  readonly name: string;
  readonly owner: string;
}[];
export declare const ENTRIES: readonly { readonly file: string; readonly may: readonly string[] }[];
export declare function layeringConfig(): Linter.Config[];
