export { BUILD_INFO_FILE, describeBuild, readBuildInfo } from './build-info';
export type { BuildInfo, BuildInfoFile } from './build-info';
