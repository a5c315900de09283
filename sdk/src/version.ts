/** Sent as X-Service-SDK-Version; a test keeps it equal to package.json's version. */
export const SDK_VERSION = '0.1.0';
