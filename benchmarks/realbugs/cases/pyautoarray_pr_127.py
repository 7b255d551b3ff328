# source: https://github.com/PyAutoLabs/PyAutoArray/pull/127
# expect: JAX301
# line: 18
# observed: jax 0.10.2 CPU: TypeError at line 18
# batch: 3
import jax.numpy as np


def grid_2d_slim_via_mask_from(mask_2d, pixel_scales, origin=(0.0, 0.0)):
    total_pixels = int((~mask_2d).sum())
    grid_slim = np.zeros((total_pixels, 2))
    centres_scaled = ((mask_2d.shape[0] - 1) / 2 - origin[0] / pixel_scales[0],
                      (mask_2d.shape[1] - 1) / 2 + origin[1] / pixel_scales[1])
    index = 0
    for y in range(mask_2d.shape[0]):
        for x in range(mask_2d.shape[1]):
            if not mask_2d[y, x]:
                grid_slim[index, 0] = -(y - centres_scaled[0]) * pixel_scales[0]
                grid_slim[index, 1] = (x - centres_scaled[1]) * pixel_scales[1]
                index += 1
    return grid_slim


mask = np.array([[True, False], [False, False]])
print(grid_2d_slim_via_mask_from(mask, (0.1, 0.1)))
