/**
 * `using` support that compiles for every consumer. A class that declares `[Symbol.dispose]()` in
 * its body emits a declaration that needs `Symbol.dispose` in the consumer's TypeScript lib
 * (esnext.disposable or @types/node); a browser project on lib dom + es2022 then fails to compile.
 * Instead, a class merges {@link DisposableWhereDeclared} into its type and installs the method with
 * {@link defineDispose}.
 * @module
 */

/**
 * `{ [Symbol.dispose](): void }` where the consumer's lib declares `Symbol.dispose`, and no member
 * elsewhere, so that the declarations compile with or without it.
 */
export type DisposableWhereDeclared = SymbolConstructor extends { readonly dispose: infer K extends symbol }
  ? Record<K, () => void>
  : // eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- no member: the lib has no Symbol.dispose
    Record<never, never>;

/** The runtime's `Symbol.dispose`, or the registered symbol that polyfills and older runtimes use. */
const disposeSymbol: symbol = (Symbol as { readonly dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose');

/** Installs `dispose` as the prototype's `[Symbol.dispose]` method (non-enumerable, like a class method). */
export function defineDispose<T extends object>(prototype: T, dispose: (this: T) => void): void {
  Object.defineProperty(prototype, disposeSymbol, {
    value: dispose,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}
