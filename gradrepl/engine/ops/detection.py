"""Detection ops of Paddle's vision package, replayed from its CPU kernels' arithmetic.

``yolo_loss`` (YOLOv3's loss per image: box location, class and objectness terms, with the
ignore mask of predictions that overlap a ground truth) and its gradient, ``yolo_box`` (decoded
boxes and scores; no gradient), ``roi_align``, ``roi_pool`` and ``psroi_pool`` with their
gradients. The kernels are scalar loops in C++: float results round at each operation in the
input's dtype, and the steps C++ promotes to double (``1.0 / (1.0 + std::exp(-x))``,
``2.0 - w * h``, the log term of the sigmoid cross entropy) are done in float64 here and
rounded once, as the compiled code does. ``expf``/``logf`` are glibc's (``_glibc``) for float32.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from . import _glibc

D = np.float64


def _exp(x):
    x = np.asarray(x)
    return _glibc.expf(x) if x.dtype == np.float32 else np.exp(x)


def _log(x):
    x = np.asarray(x)
    return _glibc.logf(x) if x.dtype == np.float32 else np.log(x)


def _sigmoid(x):
    """``1.0 / (1.0 + std::exp(-x))``: exp in x's type, the rest in double, rounded to T."""
    x = np.asarray(x)
    return (1.0 / (1.0 + _exp(-x).astype(D))).astype(x.dtype)


def _sce(x, label):
    """SigmoidCrossEntropy<T>: ``(x > 0 ? x : 0.0) - x * label + log(1.0 + exp(-|x|))`` (the
    conditional and the log term double, ``x * label`` in T), rounded to T."""
    x, label = np.asarray(x), np.asarray(label, x.dtype)
    t = x.dtype.type
    first = np.where(x > 0, x, 0).astype(D) - (x * label).astype(D)
    return t(first + np.log(1.0 + _exp(-np.abs(x)).astype(D)))


def _sce_grad(x, label):
    x = np.asarray(x)
    return x.dtype.type(1.0 / (1.0 + D(_exp(-x))) - D(np.asarray(label, x.dtype)))


# ------------------------------------------------------------------------------ yolo_loss
def _iou(b1, b2, t):
    """CalcBoxIoU<T> on (x, y, w, h) centre boxes: the half widths in double."""
    def overlap(c1, w1, c2, w2):
        l1, l2 = t(D(c1) - D(w1) / 2.0), t(D(c2) - D(w2) / 2.0)
        r1, r2 = t(D(c1) + D(w1) / 2.0), t(D(c2) + D(w2) / 2.0)
        return t(min(r1, r2) - max(l1, l2))

    w = overlap(b1[0], b1[2], b2[0], b2[2])
    h = overlap(b1[1], b1[3], b2[1], b2[3])
    inter = t(0.0) if (w < 0 or h < 0) else t(w * h)
    union = t(t(t(b1[2] * b1[3]) + t(b2[2] * b2[3])) - inter)
    return t(inter / union)


def _yolo_setup(x, class_num, use_label_smooth):
    t = x.dtype.type
    pos, neg = t(1.0), t(0.0)
    if use_label_smooth:
        smooth = t(min(1.0 / D(t(class_num)), 1.0 / 40))
        pos, neg = t(1.0 - D(smooth)), smooth
    return t, pos, neg


def _yolo_loss_fwd(x, gt_box, gt_label, gt_score, anchors=(), anchor_mask=(), class_num=1,
                   ignore_thresh=0.7, downsample_ratio=32, use_label_smooth=True,
                   scale_x_y=1.0):
    t, pos, neg = _yolo_setup(x, class_num, use_label_smooth)
    n, _, h, w = x.shape
    an_num, mask_num, b = len(anchors) // 2, len(anchor_mask), gt_box.shape[1]
    input_size = downsample_ratio * h
    scale = np.float32(scale_x_y)
    bias = np.float32(-0.5 * (D(scale) - 1.0))
    xr = x.reshape(n, mask_num, class_num + 5, h, w)
    loss = np.zeros(n, x.dtype)
    obj = np.zeros((n, mask_num, h, w), x.dtype)
    match = np.zeros((n, b), np.int32)
    valid = ~((gt_box[..., 2] < 1e-6) | (gt_box[..., 3] < 1e-6))
    sig = _sigmoid(xr[:, :, 0:2])
    ex = _exp(xr[:, :, 2:4])
    for i in range(n):
        for j in range(mask_num):
            a = anchor_mask[j]
            for k in range(h):
                for l in range(w):
                    pred = (t(t(t(t(l) + t(sig[i, j, 0, k, l] * t(scale))) + t(bias)) / t(h)),
                            t(t(t(t(k) + t(sig[i, j, 1, k, l] * t(scale))) + t(bias)) / t(h)),
                            t(t(ex[i, j, 0, k, l] * t(anchors[2 * a])) / t(input_size)),
                            t(t(ex[i, j, 1, k, l] * t(anchors[2 * a + 1])) / t(input_size)))
                    best = t(0)
                    for q in range(b):
                        if valid[i, q]:
                            iou = _iou(pred, gt_box[i, q], t)
                            best = iou if iou > best else best
                    if best > t(ignore_thresh):
                        obj[i, j, k, l] = -1
        for q in range(b):
            if not valid[i, q]:
                match[i, q] = -1
                continue
            gt = gt_box[i, q]
            gi, gj = int(t(gt[0] * t(w))), int(t(gt[1] * t(h)))
            best, best_n = t(0.0), 0
            for an in range(an_num):
                an_box = (t(0), t(0), t(t(anchors[2 * an]) / t(input_size)),
                          t(t(anchors[2 * an + 1]) / t(input_size)))
                iou = np.float32(_iou(an_box, (t(0), t(0), gt[2], gt[3]), t))
                if iou > best:
                    best, best_n = iou, an
            mask_idx = anchor_mask.index(best_n) if best_n in anchor_mask else -1
            match[i, q] = mask_idx
            if mask_idx < 0:
                continue
            score = gt_score[i, q]
            cell = xr[i, mask_idx, :, gj, gi]
            tx, ty, tw, th, sc = _targets(gt, gi, gj, h, input_size, anchors, best_n, score, t)
            loss[i] = t(loss[i] + t(_sce(cell[0], tx) * sc))
            loss[i] = t(loss[i] + t(_sce(cell[1], ty) * sc))
            loss[i] = t(loss[i] + t(t(abs(t(tw - cell[2]))) * sc))
            loss[i] = t(loss[i] + t(t(abs(t(th - cell[3]))) * sc))
            obj[i, mask_idx, gj, gi] = score
            label = int(gt_label[i, q])
            for c in range(class_num):
                loss[i] = t(loss[i] + t(_sce(cell[5 + c], pos if c == label else neg) * score))
    for i in range(n):
        for j in range(mask_num):
            for k in range(h):
                for l in range(w):
                    o, v = obj[i, j, k, l], xr[i, j, 4, k, l]
                    if o > 1e-5:
                        loss[i] = t(loss[i] + t(_sce(v, t(1.0)) * o))
                    elif o > -0.5:
                        loss[i] = t(loss[i] + _sce(v, t(0.0)))
    return loss, obj, match


def _targets(gt, gi, gj, grid, input_size, anchors, an, score, t):
    tx = t(t(gt[0] * t(grid)) - t(gi))
    ty = t(t(gt[1] * t(grid)) - t(gj))
    tw = t(_log(t(t(gt[2] * t(input_size)) / t(anchors[2 * an]))))
    th = t(_log(t(t(gt[3] * t(input_size)) / t(anchors[2 * an + 1]))))
    sc = t((2.0 - D(t(gt[2] * gt[3]))) * D(score))
    return tx, ty, tw, th, sc


def _yolo_loss_grad_fwd(g, x, gt_box, gt_label, gt_score, obj, match, anchors=(),
                        anchor_mask=(), class_num=1, downsample_ratio=32,
                        use_label_smooth=True, **_):
    t, pos, neg = _yolo_setup(x, class_num, use_label_smooth)
    n, _, h, w = x.shape
    mask_num, b = len(anchor_mask), gt_box.shape[1]
    input_size = downsample_ratio * h
    xr = x.reshape(n, mask_num, class_num + 5, h, w)
    dx = np.zeros_like(xr)
    for i in range(n):
        gl = g[i]
        for q in range(b):
            mask_idx = int(match[i, q])
            if mask_idx < 0:
                continue
            gt, score = gt_box[i, q], gt_score[i, q]
            gi, gj = int(t(gt[0] * t(w))), int(t(gt[1] * t(h)))
            an = anchor_mask[mask_idx]
            tx, ty, tw, th, sc = _targets(gt, gi, gj, h, input_size, anchors, an, score, t)
            cell, dcell = xr[i, mask_idx, :, gj, gi], dx[i, mask_idx, :, gj, gi]
            dcell[0] = t(t(_sce_grad(cell[0], tx) * sc) * gl)
            dcell[1] = t(t(_sce_grad(cell[1], ty) * sc) * gl)
            dcell[2] = t(t(t(1.0 if cell[2] > tw else -1.0) * sc) * gl)
            dcell[3] = t(t(t(1.0 if cell[3] > th else -1.0) * sc) * gl)
            label = int(gt_label[i, q])
            for c in range(class_num):
                lab = pos if c == label else neg
                dcell[5 + c] = t(t(_sce_grad(cell[5 + c], lab) * score) * gl)
        for j in range(mask_num):
            for k in range(h):
                for l in range(w):
                    o, v = obj[i, j, k, l], xr[i, j, 4, k, l]
                    if o > 1e-5:
                        dx[i, j, 4, k, l] = t(t(_sce_grad(v, t(1.0)) * o) * gl)
                    elif o > -0.5:
                        dx[i, j, 4, k, l] = t(_sce_grad(v, t(0.0)) * gl)
    return dx.reshape(x.shape)


def _yolo_loss_vjp(n, g, *_):
    if g is None:
        return (None,) * 4
    x, gt_box, gt_label, gt_score = n.inputs
    obj, match = n.out_data[1], n.out_data[2]
    attrs = dict(n.attrs)
    dx = apply(YOLO_LOSS_GRAD, (g, x, gt_box, gt_label, gt_score),
               dict(attrs, obj=obj, match=match))
    return dx, None, None, None


def _yolo_grad_op_fwd(g, x, gt_box, gt_label, gt_score, obj=None, match=None, **attrs):
    return _yolo_loss_grad_fwd(g, x, gt_box, gt_label, gt_score, obj, match, **attrs)


_YOLO_EX_ATTRS = {"anchors": (10, 13, 16, 30), "anchor_mask": (0, 1), "class_num": 2,
                  "ignore_thresh": 0.99, "downsample_ratio": 32, "use_label_smooth": False,
                  "scale_x_y": 1.0}
YOLO_LOSS = register(
    "yolov3_loss", _yolo_loss_fwd, _yolo_loss_vjp, n_outputs=3, diff_inputs=(0,),
    diff_outputs=(0,), legacy_name="Yolov3LossBackward", second_order=False,
    examples=[([(1, 14, 2, 2), np.array([[[0.3, 0.4, 0.2, 0.3], [0.8, 0.6, 0.1, 0.1]]]),
                np.array([[0, 1]], np.int32), np.ones((1, 2))], _YOLO_EX_ATTRS)])
YOLO_LOSS_GRAD = register("yolov3_loss_grad", _yolo_grad_op_fwd, None, diff_inputs=(0,),
                          check=False)


def yolo_loss(x, gt_box, gt_label, gt_score, **attrs):
    """(loss per image, objectness mask, gt match mask); only the loss takes a gradient."""
    return apply(YOLO_LOSS, (x, gt_box, gt_label, gt_score), attrs)


# ------------------------------------------------------------------------------ yolo_box
def yolo_box_arrays(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
                    scale_x_y=1.0):
    """YoloBoxKernel (iou_aware False): boxes [n, an_num*h*w, 4] and scores [n, ..., class_num],
    zero where the objectness is under ``conf_thresh``."""
    t = x.dtype.type
    n, _, h, w = x.shape
    an_num = len(anchors) // 2
    xr = x.reshape(n, an_num, class_num + 5, h, w)
    scale = np.float32(scale_x_y)
    bias = np.float32(-0.5 * (scale - np.float32(1.0)))
    in_h, in_w = downsample_ratio * h, downsample_ratio * w
    boxes = np.zeros((n, an_num, h, w, 4), x.dtype)
    scores = np.zeros((n, an_num, h, w, class_num), x.dtype)
    conf = _sigmoid(xr[:, :, 4])
    sig = _sigmoid(xr[:, :, 0:2])
    ex = _exp(xr[:, :, 2:4])
    cls = _sigmoid(xr[:, :, 5:])
    ls = np.arange(w, dtype=x.dtype)[None, :]
    ks = np.arange(h, dtype=x.dtype)[:, None]
    for i in range(n):
        img_h, img_w = t(img_size[i, 0]), t(img_size[i, 1])
        for j in range(an_num):
            keep = ~(conf[i, j] < np.float32(conf_thresh))
            bx = ((ls + sig[i, j, 0] * t(scale)) + t(bias)) * img_w / t(w)
            by = ((ks + sig[i, j, 1] * t(scale)) + t(bias)) * img_h / t(h)
            bw = ex[i, j, 0] * t(anchors[2 * j]) * img_w / t(in_w)
            bh = ex[i, j, 1] * t(anchors[2 * j + 1]) * img_h / t(in_h)
            b = np.stack([bx - bw / t(2), by - bh / t(2), bx + bw / t(2), by + bh / t(2)], -1)
            if clip_bbox:
                b[..., 0] = np.where(b[..., 0] > 0, b[..., 0], 0)
                b[..., 1] = np.where(b[..., 1] > 0, b[..., 1], 0)
                b[..., 2] = np.where(b[..., 2] < img_w - 1, b[..., 2], img_w - 1)
                b[..., 3] = np.where(b[..., 3] < img_h - 1, b[..., 3], img_h - 1)
            boxes[i, j] = np.where(keep[..., None], b, 0)
            s = conf[i, j][None] * cls[i, j]
            scores[i, j] = np.where(keep[..., None], np.moveaxis(s, 0, -1), 0)
    return boxes.reshape(n, -1, 4), scores.reshape(n, -1, class_num)


# ------------------------------------------------------------------------------ roi_align
def _roi_batch_ids(boxes_num, n_rois):
    ids = np.repeat(np.arange(len(boxes_num)), np.asarray(boxes_num, np.int64))
    return ids[:n_rois]


def _roi_align_samples(boxes, height, width, ph_n, pw_n, spatial_scale, sampling_ratio, aligned,
                       t):
    """Per roi: the grid size and, per output bin, its sample points as (4 offsets, 4 weights)
    in GetIndexesAndRatios' order (the weights in the boxes' dtype)."""
    out = []
    off = t(0.5) if aligned else t(0)
    for roi in boxes:
        x0, y0 = t(t(roi[0] * t(spatial_scale)) - off), t(t(roi[1] * t(spatial_scale)) - off)
        x1, y1 = t(t(roi[2] * t(spatial_scale)) - off), t(t(roi[3] * t(spatial_scale)) - off)
        rw, rh = t(x1 - x0), t(y1 - y0)
        if not aligned:
            rw, rh = max(rw, t(1.0)), max(rh, t(1.0))
        gh = sampling_ratio if sampling_ratio > 0 else int(np.ceil(t(rh / t(ph_n))))
        gw = sampling_ratio if sampling_ratio > 0 else int(np.ceil(t(rw / t(pw_n))))
        bw, bh = t(rw / t(pw_n)), t(rh / t(ph_n))
        pts = []
        for py in range(ph_n):
            for px in range(pw_n):
                for iy in range(gh):
                    y = t(y0 + t(bh * t(t(py) + t(t(np.float32(iy) + np.float32(0.5)) / t(gh)))))
                    for ix in range(gw):
                        x = t(x0 + t(bw * t(t(px) + t(t(np.float32(ix) + np.float32(0.5))
                                                       / t(gw)))))
                        if y < -1.0 or y > height or x < -1.0 or x > width:
                            pts.append(((0, 0, 0, 0), (t(0), t(0), t(0), t(0))))
                            continue
                        yy, xx = (t(0) if y <= 0 else y), (t(0) if x <= 0 else x)
                        xl = int(xx)
                        if xl >= width - 1:
                            xh = xl = width - 1
                            xx = t(xl)
                        else:
                            xh = xl + 1
                        yl = int(yy)
                        if yl >= height - 1:
                            yh = yl = height - 1
                            yy = t(yl)
                        else:
                            yh = yl + 1
                        xr, yr = t(t(xh) - xx), t(t(yh) - yy)
                        pts.append(((yl * width + xl, yl * width + xh, yh * width + xl,
                                     yh * width + xh),
                                    (t(xr * yr), t(t(1 - xr) * yr), t(xr * t(1 - yr)),
                                     t(t(1 - xr) * t(1 - yr)))))
        out.append((gh * gw, pts))
    return out


def _roi_align_fwd(x, boxes, boxes_num, pooled_height=1, pooled_width=1, spatial_scale=1.0,
                   sampling_ratio=-1, aligned=True):
    t = x.dtype.type
    n, c, h, w = x.shape
    ids = _roi_batch_ids(boxes_num, boxes.shape[0])
    out = np.zeros((boxes.shape[0], c, pooled_height, pooled_width), x.dtype)
    rois = _roi_align_samples(boxes, h, w, pooled_height, pooled_width, spatial_scale,
                              sampling_ratio, aligned, t)
    for r, (count, pts) in enumerate(rois):
        flat = x[ids[r]].reshape(c, -1)
        inv = t(1.0 / count)
        vals = np.zeros((c, len(pts)), x.dtype)
        for s, (o, wt) in enumerate(pts):   # ((xy + Xy) + xY) + XY, per channel at once
            vals[:, s] = ((wt[0] * flat[:, o[0]] + wt[1] * flat[:, o[1]]) + wt[2] * flat[:, o[2]]
                          + wt[3] * flat[:, o[3]])
        vals = vals.reshape(c, pooled_height * pooled_width, count)
        acc = np.zeros((c, pooled_height * pooled_width), x.dtype)
        for s in range(count):
            acc = acc + vals[:, :, s]
        out[r] = (acc * inv).reshape(c, pooled_height, pooled_width)
    return out


def _roi_align_grad_fwd(g, x, boxes, boxes_num, pooled_height=1, pooled_width=1,
                        spatial_scale=1.0, sampling_ratio=-1, aligned=True):
    """RoiAlignGradKernel: its own sample points (``ymin + ph * bin_h + (iy + .5) * bin_h /
    grid``, the roi at least 1 wide even when aligned) and weights (``hy * hx`` ... from
    ``ly = y - y_low``), ``g * w / count`` added to the four neighbours in order."""
    t = x.dtype.type
    n, c, h, w = x.shape
    ids = _roi_batch_ids(boxes_num, boxes.shape[0])
    dx = np.zeros((n, c, h * w), x.dtype)
    off = t(0.5) if aligned else t(0)
    for r, roi in enumerate(boxes):
        x0, y0 = t(t(roi[0] * t(spatial_scale)) - off), t(t(roi[1] * t(spatial_scale)) - off)
        x1, y1 = t(t(roi[2] * t(spatial_scale)) - off), t(t(roi[3] * t(spatial_scale)) - off)
        rw, rh = max(t(x1 - x0), t(1.0)), max(t(y1 - y0), t(1.0))
        bh, bw = t(rh / t(pooled_height)), t(rw / t(pooled_width))
        gh = sampling_ratio if sampling_ratio > 0 else int(np.ceil(t(rh / t(pooled_height))))
        gw = sampling_ratio if sampling_ratio > 0 else int(np.ceil(t(rw / t(pooled_width))))
        count = t(gh * gw)
        gr = g[r].reshape(c, -1)
        for ph in range(pooled_height):
            for pw in range(pooled_width):
                gb = gr[:, ph * pooled_width + pw]
                for iy in range(gh):
                    y = t(t(y0 + t(t(ph) * bh)) + t(t(t(np.float32(iy) + np.float32(0.5)) * bh)
                                                    / t(gh)))
                    for ix in range(gw):
                        xx = t(t(x0 + t(t(pw) * bw)) + t(t(t(np.float32(ix) + np.float32(0.5))
                                                           * bw) / t(gw)))
                        if y < -1.0 or y > h or xx < -1.0 or xx > w:
                            continue
                        yy, xv = (t(0) if y <= 0 else y), (t(0) if xx <= 0 else xx)
                        yl, xl = int(yy), int(xv)
                        if yl >= h - 1:
                            yh = yl = h - 1
                            yy = t(yl)
                        else:
                            yh = yl + 1
                        if xl >= w - 1:
                            xh = xl = w - 1
                            xv = t(xl)
                        else:
                            xh = xl + 1
                        ly, lx = t(yy - t(yl)), t(xv - t(xl))
                        hy, hx = t(1.0 - D(ly)), t(1.0 - D(lx))
                        for k, wt in ((yl * w + xl, t(hy * hx)), (yl * w + xh, t(hy * lx)),
                                      (yh * w + xl, t(ly * hx)), (yh * w + xh, t(ly * lx))):
                            dx[ids[r], :, k] += (gb * wt) / count
    return dx.reshape(x.shape)


def _roi_align_vjp(n, g):
    x, boxes, boxes_num = n.inputs
    return apply(ROI_ALIGN_GRAD, (g, x, boxes, boxes_num), n.attrs), None, None


_ROI_EX = ([(2, 2, 5, 5), np.array([[0., 0., 3., 3.], [1., 0.5, 4., 4.], [0.5, 1., 2., 4.5]]),
            np.array([2, 1], np.int32)],)
ROI_ALIGN = register(
    "roi_align", _roi_align_fwd, _roi_align_vjp, diff_inputs=(0,), second_order=False,
    legacy_name="RoiAlignBackward",
    examples=[(_ROI_EX[0], {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0,
                            "sampling_ratio": -1, "aligned": True})])
ROI_ALIGN_GRAD = register("roi_align_grad", _roi_align_grad_fwd, None, diff_inputs=(0,),
                          check=False)


def roi_align(x, boxes, boxes_num, **attrs):
    return apply(ROI_ALIGN, (x, boxes, boxes_num), attrs)


# ------------------------------------------------------------------------------ roi_pool
def _cround(v):
    """std::round: halves away from zero."""
    return int(np.sign(v) * np.floor(abs(v) + 0.5))


def _roi_pool_bins(boxes, h, w, ph_n, pw_n, spatial_scale, t):
    out = []
    for roi in boxes:
        sw, sh = _cround(t(roi[0] * t(spatial_scale))), _cround(t(roi[1] * t(spatial_scale)))
        ew, eh = _cround(t(roi[2] * t(spatial_scale))), _cround(t(roi[3] * t(spatial_scale)))
        rh, rw = max(eh - sh + 1, 1), max(ew - sw + 1, 1)
        bh, bw = t(t(rh) / t(ph_n)), t(t(rw) / t(pw_n))
        bins = []
        for ph in range(ph_n):
            for pw in range(pw_n):
                hs = min(max(int(np.floor(t(t(ph) * bh))) + sh, 0), h)
                he = min(max(int(np.ceil(t(t(ph + 1) * bh))) + sh, 0), h)
                ws = min(max(int(np.floor(t(t(pw) * bw))) + sw, 0), w)
                we = min(max(int(np.ceil(t(t(pw + 1) * bw))) + sw, 0), w)
                bins.append((hs, he, ws, we))
        out.append(bins)
    return out


def _roi_pool_fwd(x, boxes, boxes_num, pooled_height=1, pooled_width=1, spatial_scale=1.0):
    n, c, h, w = x.shape
    ids = _roi_batch_ids(boxes_num, boxes.shape[0])
    out = np.zeros((boxes.shape[0], c, pooled_height * pooled_width), x.dtype)
    arg = np.full(out.shape, -1, np.int64)
    for r, bins in enumerate(_roi_pool_bins(boxes, h, w, pooled_height, pooled_width,
                                            spatial_scale, x.dtype.type)):
        for b, (hs, he, ws, we) in enumerate(bins):
            if he <= hs or we <= ws:
                continue
            region = x[ids[r], :, hs:he, ws:we].reshape(c, -1)
            k = np.argmax(region, axis=1)     # the first maximum, as the kernel's strict ">"
            out[r, :, b] = region[np.arange(c), k]
            arg[r, :, b] = (hs + k // (we - ws)) * w + ws + k % (we - ws)
    shape = (boxes.shape[0], c, pooled_height, pooled_width)
    return out.reshape(shape), arg.reshape(shape)


def _roi_pool_vjp(n, g, *_):
    x, boxes, boxes_num = n.inputs
    return (apply(ROI_POOL_GRAD, (g,), {"arg": n.out_data[1], "ids": _roi_batch_ids(
        boxes_num.data, boxes.data.shape[0]), "shape": tuple(x.data.shape)}), None, None)


def _roi_pool_grad_fwd(g, arg=None, ids=None, shape=()):
    n, c, h, w = shape
    dx = np.zeros((n, c, h * w), g.dtype)
    for r in range(g.shape[0]):
        a = arg[r].reshape(c, -1)
        gr = g[r].reshape(c, -1)
        for ch in range(c):
            for b in range(a.shape[1]):
                if a[ch, b] >= 0:
                    dx[ids[r], ch, a[ch, b]] += gr[ch, b]
    return dx.reshape(shape)


ROI_POOL = register(
    "roi_pool", _roi_pool_fwd, _roi_pool_vjp, n_outputs=2, diff_inputs=(0,), diff_outputs=(0,),
    second_order=False, legacy_name="RoiPoolBackward", domain="distinct",
    examples=[(_ROI_EX[0], {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0})])
ROI_POOL_GRAD = register("roi_pool_grad", _roi_pool_grad_fwd, None, check=False)


def roi_pool(x, boxes, boxes_num, **attrs):
    return apply(ROI_POOL, (x, boxes, boxes_num), attrs)[0]


# ------------------------------------------------------------------------------ psroi_pool
def _std_round(v, t):
    """std::round in T: halves away from zero (the fraction ``v - trunc(v)`` is exact)."""
    r = np.trunc(v)
    if abs(t(v - r)) >= 0.5:
        r = r + np.sign(v)
    return t(r)


def _psroi_bins(boxes, h, w, ph_n, pw_n, spatial_scale, t):
    """PsroiPoolKernel's bins per roi: the box's corners rounded (the end one past), scaled in
    T, at least 0.1 wide, cut in equal T-sized bins, floor/ceil'ed and clipped to the map."""
    ss = t(np.float32(spatial_scale))
    out = []
    for roi in boxes:
        sw, sh = t(_std_round(roi[0], t) * ss), t(_std_round(roi[1], t) * ss)
        ew = t(t(D(_std_round(roi[2], t)) + 1.0) * ss)
        eh = t(t(D(_std_round(roi[3], t)) + 1.0) * ss)
        bh = t(max(t(eh - sh), t(0.1)) / t(ph_n))
        bw = t(max(t(ew - sw), t(0.1)) / t(pw_n))
        bins = []
        for ph in range(ph_n):
            for pw in range(pw_n):
                hs = min(max(int(np.floor(t(t(t(ph) * bh) + sh))), 0), h)
                ws = min(max(int(np.floor(t(t(t(pw) * bw) + sw))), 0), w)
                he = min(max(int(np.ceil(t(t(t(ph + 1) * bh) + sh))), 0), h)
                we = min(max(int(np.ceil(t(t(t(pw + 1) * bw) + sw))), 0), w)
                bins.append((hs, he, ws, we))
        out.append(bins)
    return out


def _psroi_pool_fwd(x, boxes, boxes_num, pooled_height=1, pooled_width=1, output_channels=1,
                    spatial_scale=1.0):
    """R-FCN's position-sensitive average pooling: output channel c's bin (ph, pw) averages
    input channel ``(c * ph_n + ph) * pw_n + pw`` over the bin, summed in order in T."""
    t = x.dtype.type
    n, c, h, w = x.shape
    ids = _roi_batch_ids(boxes_num, boxes.shape[0])
    out = np.zeros((boxes.shape[0], output_channels, pooled_height * pooled_width), x.dtype)
    for r, bins in enumerate(_psroi_bins(boxes, h, w, pooled_height, pooled_width,
                                         spatial_scale, t)):
        for b, (hs, he, ws, we) in enumerate(bins):
            if he <= hs or we <= ws:
                continue
            chans = np.arange(output_channels) * (pooled_height * pooled_width) + b
            region = x[ids[r], chans, hs:he, ws:we].reshape(output_channels, -1)
            total = np.add.accumulate(region, axis=1, dtype=x.dtype)[:, -1]
            out[r, :, b] = total / t((he - hs) * (we - ws))
    return out.reshape(boxes.shape[0], output_channels, pooled_height, pooled_width)


def _psroi_pool_grad_fwd(g, x, boxes, boxes_num, pooled_height=1, pooled_width=1,
                         output_channels=1, spatial_scale=1.0):
    """PsroiPoolGradKernel: each output's ``g / area`` added to its bin, outputs in order."""
    t = x.dtype.type
    n, c, h, w = x.shape
    ids = _roi_batch_ids(boxes_num, boxes.shape[0])
    dx = np.zeros(x.shape, x.dtype)
    nb = pooled_height * pooled_width
    for r, bins in enumerate(_psroi_bins(boxes, h, w, pooled_height, pooled_width,
                                         spatial_scale, t)):
        gr = g[r].reshape(output_channels, nb)
        for oc in range(output_channels):
            for b, (hs, he, ws, we) in enumerate(bins):
                if he <= hs or we <= ws:
                    continue
                dx[ids[r], oc * nb + b, hs:he, ws:we] += gr[oc, b] / t((he - hs) * (we - ws))
    return dx


def _psroi_pool_vjp(n, g):
    x, boxes, boxes_num = n.inputs
    return apply(PSROI_POOL_GRAD, (g, x, boxes, boxes_num), n.attrs), None, None


PSROI_POOL = register(
    "psroi_pool", _psroi_pool_fwd, _psroi_pool_vjp, diff_inputs=(0,), second_order=False,
    legacy_name="PsroiPoolBackward",
    examples=[([(2, 8, 5, 5), np.array([[0., 0., 3., 3.], [1., 0.5, 4., 4.], [0.5, 1., 2., 4.5]]),
                np.array([2, 1], np.int32)],
               {"pooled_height": 2, "pooled_width": 2, "output_channels": 2,
                "spatial_scale": 1.0})])
PSROI_POOL_GRAD = register("psroi_pool_grad", _psroi_pool_grad_fwd, None, diff_inputs=(0,),
                           check=False)


def psroi_pool(x, boxes, boxes_num, **attrs):
    return apply(PSROI_POOL, (x, boxes, boxes_num), attrs)
