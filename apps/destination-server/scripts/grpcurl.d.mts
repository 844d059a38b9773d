export declare const GRPCURL_VERSION: string;
export declare function grpcurlPath(): string;
export declare function ensureGrpcurl(options?: { log?: (line: string) => void }): Promise<string>;
