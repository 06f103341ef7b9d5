"""Colour arithmetic shared by the renderer and the readers: sRGB <-> linear light, CIE Lab (D65), and the
white point of a light of a given colour temperature.

Pure numpy; no OpenCV. Lab here is computed from linear sRGB with the D65 white, so a reflectance of
(1, 1, 1) is L* = 100, a* = b* = 0.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]

_RGB_TO_XYZ = np.array(
    [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]], dtype=np.float64
)
_XYZ_TO_RGB = np.linalg.inv(_RGB_TO_XYZ)
_D65 = np.array([0.95047, 1.0, 1.08883])


def srgb_to_linear(values: npt.ArrayLike) -> FloatArray:
    """sRGB-encoded values in 0..1 to linear light."""
    v = np.asarray(values, dtype=np.float32)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(values: npt.ArrayLike) -> FloatArray:
    v = np.clip(np.asarray(values, dtype=np.float32), 0.0, 1.0)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * np.power(v, 1 / 2.4) - 0.055).astype(np.float32)


#: uint8 sRGB code value -> linear light, for decoding photo pixels without a float conversion of the photo.
LINEAR_LUT: FloatArray = srgb_to_linear(np.arange(256, dtype=np.float32) / 255.0)
#: The same table for each of three channels, as cv2.LUT takes it: it looks a whole image up several times faster
#: than numpy's indexing.
LINEAR_LUT3: FloatArray = np.ascontiguousarray(np.repeat(LINEAR_LUT[:, None], 3, axis=1).reshape(1, 256, 3))


def linear_rgb_to_lab(rgb: npt.ArrayLike) -> FloatArray:
    """Linear sRGB (..., 3; R, G, B order) to CIE L*a*b* relative to D65."""
    arr = np.asarray(rgb, dtype=np.float64)
    xyz = arr @ _RGB_TO_XYZ.T / _D65
    delta = 6 / 29
    f = np.where(xyz > delta**3, np.cbrt(np.maximum(xyz, 0.0)), xyz / (3 * delta**2) + 4 / 29)
    lab = np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1
    )
    return lab.astype(np.float32)


def lab_to_linear_rgb(lab: npt.ArrayLike) -> FloatArray:
    arr = np.asarray(lab, dtype=np.float64)
    fy = (arr[..., 0] + 16) / 116
    fx = fy + arr[..., 1] / 500
    fz = fy - arr[..., 2] / 200
    delta = 6 / 29

    def inv(t: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return np.where(t > delta, t**3, 3 * delta**2 * (t - 4 / 29))

    xyz = np.stack([inv(fx), inv(fy), inv(fz)], axis=-1) * _D65
    return np.clip(xyz @ _XYZ_TO_RGB.T, 0.0, None).astype(np.float32)


def kelvin_to_rgb(kelvin: float) -> FloatArray:
    """Linear sRGB colour of a Planckian light of this temperature, scaled so its largest channel is 1.

    Chromaticity from the cubic-spline fit of the Planckian locus (Kim et al. 2002), valid 1667-25000 K.
    """
    t = float(np.clip(kelvin, 1667.0, 25000.0))
    if t <= 4000:
        x = -0.2661239e9 / t**3 - 0.2343589e6 / t**2 + 0.8776956e3 / t + 0.179910
    else:
        x = -3.0258469e9 / t**3 + 2.1070379e6 / t**2 + 0.2226347e3 / t + 0.240390
    if t <= 2222:
        y = -1.1063814 * x**3 - 1.34811020 * x**2 + 2.18555832 * x - 0.20219683
    elif t <= 4000:
        y = -0.9549476 * x**3 - 1.37418593 * x**2 + 2.09137015 * x - 0.16748867
    else:
        y = 3.0817580 * x**3 - 5.87338670 * x**2 + 3.75112997 * x - 0.37001483
    xyz = np.array([x / y, 1.0, (1 - x - y) / y])
    rgb = np.clip(_XYZ_TO_RGB @ xyz, 1e-4, None)
    return (rgb / rgb.max()).astype(np.float32)


def lab_of(rgb: npt.ArrayLike) -> tuple[float, float, float]:
    """Lab of one linear-RGB colour, in plain floats: the readers call this thousands of times per photo."""
    # (A numpy array's values straight to Python numbers: float32 to a Python float is exact, as numpy's cast is.)
    r, g, b = (rgb.reshape(3) if isinstance(rgb, np.ndarray) else np.asarray(rgb, dtype=np.float64).reshape(3)).tolist()
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return math.copysign(abs(t) ** (1 / 3), t) if t > 0.008856451679035631 else t / 0.12841854934601665 + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
