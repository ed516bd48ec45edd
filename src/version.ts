/** The version of vc, shown by --version and in the OpenAPI documents. */
export const VERSION = '0.1.0';
