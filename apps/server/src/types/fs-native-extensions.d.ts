/** The part of fs-native-extensions (it ships no types) that src/data-dir.ts uses. */
declare module 'fs-native-extensions' {
  /** An exclusive (or shared) lock on the open file `fd`; false when another holder has it. */
  export function tryLock(fd: number, opts?: { shared?: boolean }): boolean;
  export function unlock(fd: number): void;
}
