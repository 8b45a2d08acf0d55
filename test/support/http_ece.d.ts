// http_ece ships no types; only the decrypt call the tests use is declared.
declare module 'http_ece' {
  const ece: {
    decrypt(
      buffer: Buffer,
      params: { version: string; privateKey: import('node:crypto').ECDH; dh?: string; authSecret: string },
    ): Buffer;
  };
  export default ece;
}
