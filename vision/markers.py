"""Finding the ArUco stickers in a photo and turning them into a homography and a camera pose.

Markers are detected on a downscaled grey copy (fast) and their corners refined on the full-resolution
grey image (accurate). The pose (focal length, camera centre over the board) is recovered from the
board-plane homography, because cubes stand up from the board and their tops appear shifted away from
the point below the camera.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.stickers import aruco_dictionary

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

DETECT_MAX_SIDE = 1400


@dataclass(frozen=True, slots=True)
class Pose:
    """Where the camera is over the board (mm; height above the board) and its focal length (px)."""

    focal_px: float
    centre_mm: tuple[float, float]
    height_mm: float
    focal_estimated: bool

    def top_shift(self, x: float, y: float, height: float) -> tuple[float, float]:
        """How far a point ``height`` mm above (x, y) appears shifted on the board plane."""
        k = height / max(self.height_mm - height, 1.0)
        return ((x - self.centre_mm[0]) * k, (y - self.centre_mm[1]) * k)


def grey_of(image: U8) -> U8:
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image, dtype=np.uint8)


def find_markers(grey: U8, dictionary: str, *, max_side: int = DETECT_MAX_SIDE) -> dict[int, F64]:
    """Marker id -> its four corners in full-resolution pixels (OpenCV order: TL, TR, BR, BL)."""
    h, w = grey.shape[:2]
    # An integer shrink factor keeps INTER_AREA on its fast path.
    factor = max(1, math.ceil(max(h, w) / max_side))
    scale = 1.0 / factor
    small = cv2.resize(grey, (w // factor, h // factor), interpolation=cv2.INTER_AREA) if factor > 1 else grey
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)
    corners, ids, _ = detector.detectMarkers(small)
    found: dict[int, F64] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        pts = np.asarray(c, dtype=np.float32).reshape(4, 2) / scale
        side = float(np.linalg.norm(pts[0] - pts[1]))
        win = int(np.clip(side / 14, 2, 12))
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.02)
        refined = cv2.cornerSubPix(grey, pts.reshape(-1, 1, 2).copy(), (win, win), (-1, -1), crit).reshape(4, 2)
        # A refinement that wanders off means a blurry or occluded corner: keep the coarse one.
        moved = np.linalg.norm(refined - pts, axis=1)
        pts = np.where((moved < max(2.0, 1.5 / scale))[:, None], refined, pts)
        if int(i) in found:
            continue
        found[int(i)] = pts.astype(np.float64)
    return found


def fit_homography(image_pts: F64, plane_pts: F64) -> tuple[F64, float]:
    """Image-from-plane homography (least squares) and its RMS error measured on the plane (mm)."""
    hom, _ = cv2.findHomography(plane_pts.astype(np.float64), image_pts.astype(np.float64), 0)
    if hom is None:
        raise ValueError("degenerate marker layout")
    back = cv2.perspectiveTransform(image_pts.reshape(-1, 1, 2), np.linalg.inv(hom)).reshape(-1, 2)
    rms = float(np.sqrt(np.mean(np.sum((back - plane_pts) ** 2, axis=1))))
    return np.asarray(hom / hom[2, 2], dtype=np.float64), rms


def estimate_pose(hom: F64, image_size: tuple[int, int], *, measure_focal: bool = True) -> Pose:
    """Focal length from the homography's two rotation columns (principal point at the image centre).

    When the view is nearly straight down the focal length is unobservable; a phone's typical one
    (0.85 x the long side) is used instead, which then barely matters. ``measure_focal=False`` always
    uses it (one small marker shows too little perspective to measure anything).
    """
    w, h = image_size
    shift = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])
    hc = shift @ hom
    a, b = hc[:, 0], hc[:, 1]
    a1 = a[0] * b[0] + a[1] * b[1]
    b1 = a[2] * b[2]
    a2 = a[0] ** 2 + a[1] ** 2 - b[0] ** 2 - b[1] ** 2
    b2 = a[2] ** 2 - b[2] ** 2
    denom = a1 * a1 + a2 * a2
    prior = 0.85 * max(w, h)
    focal, estimated = prior, False
    if denom > 0 and measure_focal:
        inv_f2 = -(a1 * b1 + a2 * b2) / denom
        if inv_f2 > 0:
            f = float(np.clip(1 / math.sqrt(inv_f2), 0.6 * max(w, h), 1.4 * max(w, h)))
            # Perspective measures the focal length only as well as the view is tilted: blend with the
            # phone prior, trusting the estimate fully from a clearly oblique view on.
            tilt_signal = math.hypot(a[2], b[2]) * prior / math.hypot(a[0], a[1])
            weight = float(np.clip((tilt_signal - 0.12) / 0.25, 0.0, 1.0))
            if weight > 0:
                focal = math.exp(weight * math.log(f) + (1 - weight) * math.log(prior))
                estimated = True
    kinv = np.diag([1 / focal, 1 / focal, 1.0])
    m = kinv @ hc
    lam = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    r1, r2, t = m[:, 0] * lam, m[:, 1] * lam, m[:, 2] * lam
    if t[2] < 0:
        r1, r2, t = -r1, -r2, -t
    r3 = np.cross(r1, r2)
    rot = np.column_stack([r1, r2, r3])
    u, _, vt = np.linalg.svd(rot)
    rot = u @ vt
    centre = -rot.T @ t
    return Pose(focal, (float(centre[0]), float(centre[1])), abs(float(centre[2])), estimated)
