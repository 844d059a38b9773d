export interface GoTool {
  readonly name: string;
  readonly version: string;
  readonly module: string;
  readonly ldflags: string;
  readonly cacheName: string;
  readonly cacheEnv: string;
}
export declare const HELM: GoTool;
export declare const HELM3: GoTool;
export declare const KUSTOMIZE: GoTool;
export declare function goToolPath(tool: GoTool): string;
export declare function ensureGoTool(
  tool: GoTool,
  options?: { log?: (line: string) => void },
): Promise<string>;
