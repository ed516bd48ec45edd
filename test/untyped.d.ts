// snarkjs ships no type declarations; tests use it untyped.
declare module 'snarkjs';
