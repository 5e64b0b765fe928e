/**
 * The one piece of React's API that examples/use-connection-state.ts uses, so that the example is
 * type-checked without React installed. With React in your project, @types/react provides it.
 */
declare module 'react' {
  export function useSyncExternalStore<T>(subscribe: (onStoreChange: () => void) => () => void, getSnapshot: () => T, getServerSnapshot?: () => T): T;
}
