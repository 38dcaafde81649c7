export { BASE_IMAGES, type BaseImage, DEFAULT_DEBIAN_MIRROR, findBaseImage } from './base-recipes.ts';
export { type BuildBaseOptions, type BuildBaseResult, buildBaseImage } from './build-base.ts';
export {
  type BuildImageOptions,
  type BuildImageResult,
  buildImage,
  type ImageBuildSpec,
  type ImageBuildStep,
} from './build-image.ts';
export { connectDocker, dockerHasRecipe, exportFromDocker, RECIPE_LABEL } from './docker-images.ts';
export { hashDirectory } from './hash-dir.ts';
export { resolveHome } from './home.ts';
export { normalizeImageName } from './image-name.ts';
export { type ImageRecord, ImageStore, type LayerInfo } from './image-store.ts';
export { canonicalJson, recipeKey } from './recipe-key.ts';
