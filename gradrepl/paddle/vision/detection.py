"""``paddle.vision.ops``' detection functions: ``yolo_box``, ``yolo_loss``, ``nms``,
``roi_align`` and ``roi_pool``. The kernels are in ``engine/ops/detection.py``; ``nms`` with
scores or categories is Paddle's own Python around its kernel (argsort, per-category masks,
topk), retyped here on gradrepl's tensors."""
from __future__ import annotations

import numpy as np

from ...engine.ops import detection as K
from ..core import Tensor

__all__ = ["yolo_box", "yolo_loss", "nms", "roi_align", "roi_pool", "psroi_pool", "box_coder",
           "prior_box", "generate_proposals", "matrix_nms", "distribute_fpn_proposals"]


def _arr(t):
    return t.data if isinstance(t, Tensor) else np.asarray(t)


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True,
             name=None, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    if iou_aware:
        raise NotImplementedError("gradrepl's yolo_box does not emulate iou_aware=True")
    boxes, scores = K.yolo_box_arrays(_arr(x), _arr(img_size).astype(np.int64), list(anchors),
                                      int(class_num), float(conf_thresh), int(downsample_ratio),
                                      bool(clip_bbox), float(scale_x_y))
    return Tensor._wrap(boxes, True), Tensor._wrap(scores, True)


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
              downsample_ratio, gt_score=None, use_label_smooth=True, name=None, scale_x_y=1.0):
    h, w = x.data.shape[2], x.data.shape[3]
    if h != w:
        from .. import profiles

        v3 = profiles.current().api3
        raise ValueError(
            f"(InvalidArgument) Input(X) dim[3] and dim[4] should be {'equal' if v3 else 'euqal'}."
            f"But received dim[3]({h}) != dim[4]({w})\n  [Hint: Expected dim_x[2] == dim_x[3], "
            f"but received dim_x[2]:{h} != dim_x[3]:{w}.] (at /paddle/paddle/phi/infermeta/"
            f"multiary.cc:{5961 if v3 else 4000})")
    if gt_score is None:
        gt_score = Tensor._wrap(np.ones(gt_box.data.shape[:2], x.data.dtype), True)
    gt_label = Tensor._wrap(np.asarray(_arr(gt_label), np.int32), True)
    loss, _, _ = K.yolo_loss(x, gt_box, gt_label, gt_score, anchors=tuple(int(a) for a in anchors),
                             anchor_mask=tuple(int(a) for a in anchor_mask),
                             class_num=int(class_num), ignore_thresh=float(ignore_thresh),
                             downsample_ratio=int(downsample_ratio),
                             use_label_smooth=bool(use_label_smooth), scale_x_y=float(scale_x_y))
    return loss


def _nms_kernel(boxes, iou_threshold):
    """Paddle's nms kernel on boxes in order: a box is dropped when its IoU with a kept
    earlier one exceeds the threshold (areas without +1, in the boxes' dtype)."""
    b = _arr(boxes)
    t = b.dtype.type
    n = b.shape[0]
    dropped = np.zeros(n, bool)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    for i in range(n):
        if dropped[i]:
            continue
        for j in range(i + 1, n):
            if dropped[j]:
                continue
            iw = max(t(min(b[i, 2], b[j, 2]) - max(b[i, 0], b[j, 0])), t(0))
            ih = max(t(min(b[i, 3], b[j, 3]) - max(b[i, 1], b[j, 1])), t(0))
            inter = t(iw * ih)
            if t(inter / t(t(area[i] + area[j]) - inter)) > np.float32(iou_threshold):
                dropped[j] = True
    return Tensor._wrap(np.flatnonzero(~dropped).astype(np.int64), True)


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None,
        top_k=None):
    import gradrepl.paddle as paddle

    if scores is None:
        return _nms_kernel(boxes, iou_threshold)
    if category_idxs is None:
        order = paddle.argsort(scores, descending=True)
        return order[_nms_kernel(boxes[order], iou_threshold)]
    if top_k is not None:
        assert top_k <= scores.shape[0], "top_k should be smaller equal than the number of boxes"
    assert categories is not None, ("if category_idxs is given, categories which is a list of "
                                    "unique id of all categories is necessary")
    mask = paddle.zeros_like(scores, dtype="int32")
    for category_id in categories:
        idxs = paddle.where(paddle.equal(category_idxs, paddle.to_tensor(category_id)))[0]
        shape = idxs.shape[0]
        idxs = paddle.reshape(idxs, [shape])
        if shape == 0:
            continue
        if shape == 1:
            mask[idxs] = 1
            continue
        order = paddle.argsort(scores[idxs], descending=True)
        keep = order[_nms_kernel(boxes[idxs][order], iou_threshold)]
        updates = paddle.ones_like(idxs[keep], dtype="int32")
        mask = paddle.scatter(mask, idxs[keep], updates, overwrite=True)
    kept = paddle.where(mask)[0]
    shape = kept.shape[0]
    kept = paddle.reshape(kept, [shape])
    order = paddle.argsort(scores[kept], descending=True)
    if top_k is None:
        return kept[order]
    _, top = paddle.topk(scores[kept], min(top_k, shape))
    return kept[top]


def _boxes_num(boxes, boxes_num):
    if boxes_num is None:
        return Tensor._wrap(np.array([boxes.data.shape[0]], np.int32), True)
    return boxes_num


def _size(output_size):
    if isinstance(output_size, int):
        return output_size, output_size
    return int(output_size[0]), int(output_size[1])


def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1,
              aligned=True, name=None):
    ph, pw = _size(output_size)
    return K.roi_align(x, boxes, _boxes_num(boxes, boxes_num), pooled_height=ph,
                       pooled_width=pw, spatial_scale=float(spatial_scale),
                       sampling_ratio=int(sampling_ratio), aligned=bool(aligned))


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    ph, pw = _size(output_size)
    return K.roi_pool(x, boxes, _boxes_num(boxes, boxes_num), pooled_height=ph,
                      pooled_width=pw, spatial_scale=float(spatial_scale))


def _invalid(message, hint, where):
    """Paddle's InvalidArgument text: the message, its [Hint: ...] and the C++ place (``where``:
    the 3.x and 2.6 file:line)."""
    from .. import profiles

    at = where[0] if profiles.current().api3 else where[1]
    return ValueError(f"(InvalidArgument) {message}\n  [Hint: {hint}] (at /paddle/paddle/{at})\n")


def _same_dtype(x, boxes, where):
    xd, bd = _arr(x).dtype, _arr(boxes).dtype
    if xd != bd:
        codes = {np.dtype(np.float32): 10, np.dtype(np.float64): 11}
        raise _invalid(
            f"The type of data we are trying to retrieve ({xd}) does not match the type of data "
            f"({bd}) currently contained in the container.",
            f"Expected dtype() == phi::CppTypeToDataType<T>::Type(), but received dtype():"
            f"{codes.get(bd, 0)} != phi::CppTypeToDataType<T>::Type():{codes.get(xd, 0)}.",
            where)


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """R-FCN's position-sensitive RoI pooling: ``C = output_channels * ph * pw`` input channels,
    each output bin averages its own channel (Paddle's CPU kernel and its gradient)."""
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    pooled_height, pooled_width = output_size
    assert len(x.shape) == 4, "Input features with shape should be (N, C, H, W)"
    if pooled_height * pooled_width == 0:
        raise ValueError("output_size should not contain 0.")
    c = x.shape[1]
    output_channels = int(c / (pooled_height * pooled_width))
    if c != output_channels * pooled_height * pooled_width:
        raise _invalid(
            f"the channel of X({c}) should be equal to the product of output_channels"
            f"({output_channels}), pooled_height({pooled_height}) and pooled_width"
            f"({pooled_width})",
            f"Expected input_dims[1] == output_channels * pooled_height * pooled_width, but "
            f"received input_dims[1]:{c} != output_channels * pooled_height * pooled_width:"
            f"{output_channels * pooled_height * pooled_width}.",
            ("phi/infermeta/multiary.cc:4668", "phi/infermeta/multiary.cc:3229"))
    if output_channels <= 1:
        raise _invalid("The pooled output channels must greater than 1",
                       f"Expected output_channels > 1, but received output_channels:"
                       f"{output_channels} <= 1:1.",
                       ("phi/infermeta/multiary.cc:4688", "phi/infermeta/multiary.cc:3242"))
    boxes_num = _boxes_num(boxes, boxes_num)
    nb = int(np.asarray(_arr(boxes_num)).size)
    if nb != x.shape[0]:
        raise _invalid(
            f"The batch size of rois and the batch size of images  must be the same. But "
            f"received the batch size of rois is {nb}, and the batch size of images is "
            f"{x.shape[0]}",
            f"Expected rois_batch_size == batch_size, but received rois_batch_size:{nb} != "
            f"batch_size:{x.shape[0]}.",
            ("phi/kernels/cpu/psroi_pool_kernel.cc:60", "phi/kernels/cpu/psroi_pool_kernel.cc:68"))
    _same_dtype(x, boxes, ("phi/core/dense_tensor.cc:153", "phi/core/dense_tensor.cc:171"))
    return K.psroi_pool(x, boxes, boxes_num, pooled_height=int(pooled_height),
                        pooled_width=int(pooled_width), output_channels=output_channels,
                        spatial_scale=float(spatial_scale))


# ======================================================================= box_coder
def _libm(name, dtype):
    from ...engine.ops import _kernels as KK

    f64 = getattr(np, name)
    return KK.libm(name, f64) if dtype == np.float32 else KK.libm64(name, f64)


def _box_coder_arrays(prior, prior_var, target, code_type, normalized, axis, variance):
    """Paddle's CPU box_coder kernel (EncodeCenterSize / DecodeCenterSize), in T."""
    t = prior.dtype.type
    one = t(0 if normalized else 1)
    half = t(2)
    pw = prior[:, 2] - prior[:, 0] + one
    ph = prior[:, 3] - prior[:, 1] + one
    pcx = prior[:, 0] + pw / half
    pcy = prior[:, 1] + ph / half
    log, exp = _libm("log", prior.dtype), _libm("exp", prior.dtype)
    with np.errstate(all="ignore"):
        if code_type == "encode_center_size":
            tcx = ((target[:, 2] + target[:, 0]) / half)[:, None]
            tcy = ((target[:, 3] + target[:, 1]) / half)[:, None]
            tw = (target[:, 2] - target[:, 0] + one)[:, None]
            th = (target[:, 3] - target[:, 1] + one)[:, None]
            out = np.stack([(tcx - pcx) / pw, (tcy - pcy) / ph,
                            log(np.abs(tw / pw)), log(np.abs(th / ph))], axis=-1)
            if prior_var is not None:
                out = out / prior_var[None, :, :]
            elif variance:
                out = out / np.asarray(variance, np.float32).astype(prior.dtype)
            return out.astype(prior.dtype, copy=False)
        # decode: target [N, M, 4]; the prior of (i, j) is prior[j] (axis 0) or prior[i]
        shape = (1, -1) if axis == 0 else (-1, 1)
        pw, ph, pcx, pcy = (a.reshape(shape) for a in (pw, ph, pcx, pcy))
        if prior_var is not None:
            var = prior_var[None, :, :] if axis == 0 else prior_var[:, None, :]
        elif variance:
            var = np.asarray(variance, np.float32).astype(prior.dtype).reshape(1, 1, 4)
        else:
            var = np.ones((1, 1, 4), prior.dtype)
        tcx = var[..., 0] * target[..., 0] * pw + pcx
        tcy = var[..., 1] * target[..., 1] * ph + pcy
        tw = exp(var[..., 2] * target[..., 2]).reshape(tcx.shape) * pw
        th = exp(var[..., 3] * target[..., 3]).reshape(tcy.shape) * ph
        out = np.stack([tcx - tw / half, tcy - th / half,
                        tcx + tw / half - one, tcy + th / half - one], axis=-1)
        return out.astype(prior.dtype, copy=False)


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size",
              box_normalized=True, axis=0, name=None):
    """Encode target boxes against prior boxes (center-size offsets, divided by the variances)
    or decode offsets back into boxes: Paddle's box_coder kernel (no gradient)."""
    if isinstance(prior_box_var, Tensor):
        var, variance = _arr(prior_box_var), []
    elif isinstance(prior_box_var, (list, tuple)):
        assert len(prior_box_var) == 4, \
            "Input prior_box_var must be Variable or list|tuple with 4 elements."
        var, variance = None, [float(v) for v in prior_box_var]
    else:
        raise TypeError("Input prior_box_var must be Variable or list|tuple")
    if code_type not in ("encode_center_size", "decode_center_size"):
        raise ValueError(f"Not supported code type {code_type}")
    out = _box_coder_arrays(_arr(prior_box), var, _arr(target_box), code_type,
                            bool(box_normalized), int(axis), variance)
    return Tensor._wrap(out, True)


# ======================================================================= prior_box
def _expand_aspect_ratios(aspect_ratios, flip):
    """ExpandAspectRatios: 1 first, then each new ratio (|ar - seen| >= 1e-6) and, with flip,
    its float reciprocal."""
    f = np.float32
    out = [f(1.0)]
    for ar in aspect_ratios:
        ar = f(ar)
        if any(abs(float(ar) - float(o)) < 1e-6 for o in out):
            continue
        out.append(ar)
        if flip:
            out.append(f(f(1.0) / ar))
    return out


def _prior_sizes(min_size, max_size, ratios, minmax_order, t):
    """(half width, half height) of the priors of one min size, in the kernel's order: the
    float ``min_size * sqrt(ar)`` / ``min_size / sqrt(ar)`` halved in double, rounded to T."""
    f = np.float32
    half = [(t(float(f(min_size * np.sqrt(ar))) / 2.0), t(float(f(min_size / np.sqrt(ar))) / 2.0))
            for ar in ratios]
    square = None
    if max_size is not None:
        s = t(float(np.sqrt(f(min_size * max_size))) / 2.0)
        square = (s, s)
    if not minmax_order:
        return half + ([square] if square else [])
    first = t(float(min_size) / 2.0)
    return ([(first, first)] + ([square] if square else [])
            + [hw for ar, hw in zip(ratios, half) if abs(float(ar) - 1.0) >= 1e-6])


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0],  # noqa: B006
              variance=[0.1, 0.1, 0.2, 0.2], flip=False, clip=False, steps=[0.0, 0.0],  # noqa: B006
              offset=0.5, min_max_aspect_ratios_order=False, name=None):
    """SSD's prior boxes for each cell of ``input``'s map over ``image`` (normalised corners,
    [H, W, num_priors, 4]) and their variances: Paddle's CPU kernel in the input's dtype."""
    def _listed(v):
        return v if isinstance(v, (list, tuple)) else [v]

    min_sizes, aspect_ratios, steps = _listed(min_sizes), _listed(aspect_ratios), _listed(steps)
    if not len(steps) == 2:
        raise ValueError('steps should be (step_w, step_h)')
    f = np.float32
    t = _arr(input).dtype.type
    fh, fw = input.shape[2], input.shape[3]
    ih, iw = image.shape[2], image.shape[3]
    sw, sh = t(f(steps[0])), t(f(steps[1]))
    if sw == 0 or sh == 0:
        sw, sh = t(t(iw) / t(fw)), t(t(ih) / t(fh))
    ratios = _expand_aspect_ratios(aspect_ratios, flip)
    maxes = [f(m) for m in _listed(max_sizes)] if max_sizes is not None else []
    halves = [hw for s, m in enumerate(min_sizes)
              for hw in _prior_sizes(f(m), maxes[s] if maxes else None, ratios,
                                     min_max_aspect_ratios_order, t)]
    bw = np.array([w for w, _ in halves], t)
    bh = np.array([h for _, h in halves], t)
    cx = ((np.arange(fw).astype(t) + t(f(offset))) * sw)[None, :, None]
    cy = ((np.arange(fh).astype(t) + t(f(offset))) * sh)[:, None, None]
    out = np.empty((fh, fw, len(halves), 4), t)
    out[..., 0] = (cx - bw) / t(iw)
    out[..., 1] = (cy - bh) / t(ih)
    out[..., 2] = (cx + bw) / t(iw)
    out[..., 3] = (cy + bh) / t(ih)
    if clip:
        out = np.minimum(np.maximum(out, t(0)), t(1))
    var = np.broadcast_to(np.array([f(v) for v in variance], t), out.shape).copy()
    return Tensor._wrap(out, True), Tensor._wrap(var, True)


# ======================================================================= generate_proposals
_BBOX_CLIP = float(np.log(1000.0 / 16.0))


def _decode_proposals(anchors, deltas, var, offset, t):
    """BoxCoder of GenerateProposals: centre/size deltas (scaled by the variances) applied to
    the anchors in T, the size exponent capped at log(1000/16), glibc's expf/exp."""
    exp = _libm("exp", np.dtype(t))
    aw = anchors[:, 2] - anchors[:, 0] + offset
    ah = anchors[:, 3] - anchors[:, 1] + offset
    acx = (anchors[:, 0] + 0.5 * aw.astype(np.float64)).astype(t)
    acy = (anchors[:, 1] + 0.5 * ah.astype(np.float64)).astype(t)
    cx = var[:, 0] * deltas[:, 0] * aw + acx
    cy = var[:, 1] * deltas[:, 1] * ah + acy
    cap = t(_BBOX_CLIP)
    bw = exp(np.minimum(var[:, 2] * deltas[:, 2], cap)) * aw
    bh = exp(np.minimum(var[:, 3] * deltas[:, 3], cap)) * ah
    two = t(2)
    return np.stack([cx - bw / two, cy - bh / two, cx + bw / two - offset,
                     cy + bh / two - offset], axis=1)


def _proposal_nms(boxes, scores, thresh, eta, normalized, t):
    """funcs::NMS: scores stable-sorted ascending and taken from the back (ties: the later
    box first); a box is kept when its Jaccard overlap with every kept one is <= the
    (eta-adapted) threshold; the kept indices in selection order."""
    order = np.argsort(scores, kind="stable")[::-1]
    norm = t(0) if normalized else t(1)
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    area = np.where((boxes[:, 2] < boxes[:, 0]) | (boxes[:, 3] < boxes[:, 1]), t(0),
                    w * h if normalized else (w + t(1)) * (h + t(1)))
    kept = []
    thr = t(thresh)
    for i in order:
        if kept:
            k = np.asarray(kept)
            b1, b2 = boxes[i], boxes[k]
            apart = ((b2[:, 0] > b1[2]) | (b2[:, 2] < b1[0]) | (b2[:, 1] > b1[3])
                     | (b2[:, 3] < b1[1]))
            iw = np.minimum(b1[2], b2[:, 2]) - np.maximum(b1[0], b2[:, 0]) + norm
            ih = np.minimum(b1[3], b2[:, 3]) - np.maximum(b1[1], b2[:, 1]) + norm
            inter = iw * ih
            with np.errstate(all="ignore"):
                iou = np.where(apart, t(0), inter / (area[i] + area[k] - inter))
            if not (iou <= thr).all():
                continue
        kept.append(i)
        if eta < 1 and thr > 0.5:
            thr = t(thr * t(eta))
    return np.asarray(kept, np.int64)


def _proposals_one_image(im, anchors, var, deltas, scores, pre_n, post_n, nms_thresh,
                         min_size, eta, pixel_offset, t):
    offset = t(1) if pixel_offset else t(0)
    order = np.argsort(-scores.astype(np.float64), kind="stable")
    if 0 < pre_n < scores.size:
        order = order[:pre_n]
    sc, props = scores[order], _decode_proposals(anchors[order], deltas[order], var[order],
                                                 offset, t)
    im_h, im_w = im[0], im[1]
    lim = np.array([im_w, im_h, im_w, im_h], t) - offset
    props = np.maximum(np.minimum(props, lim), t(0))
    ws = props[:, 2] - props[:, 0] + offset
    hs = props[:, 3] - props[:, 1] + offset
    ms = np.float32(max(np.float32(min_size), np.float32(1.0)))
    keep = (ws >= ms) & (hs >= ms)
    if pixel_offset:
        two = t(2)
        keep &= (props[:, 0] + ws / two <= im_w) & (props[:, 1] + hs / two <= im_h)
    keep = np.flatnonzero(keep)
    if keep.size == 0:
        return np.zeros((1, 4), t), np.zeros((1, 1), t)
    props, sc = props[keep], sc[keep]
    if nms_thresh <= 0:
        return props, sc[:, None]
    sel = _proposal_nms(props, sc, np.float32(nms_thresh), eta, not pixel_offset, t)
    if 0 < post_n < sel.size:
        sel = sel[:post_n]
    return props[sel], sc[sel][:, None]


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000,
                       post_nms_top_n=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                       pixel_offset=False, return_rois_num=False, name=None):
    """Faster R-CNN's RPN proposals per image: the top ``pre_nms_top_n`` scores' anchors
    decoded by their deltas, clipped to the image, small boxes dropped, NMS, the first
    ``post_nms_top_n`` kept (Paddle's CPU kernel; no gradient)."""
    assert return_rois_num, "return_rois_num should be True in dygraph mode."
    s, d = _arr(scores), _arr(bbox_deltas)
    t = s.dtype.type
    n = s.shape[0]
    s = s.transpose(0, 2, 3, 1).reshape(n, -1)
    d = d.transpose(0, 2, 3, 1).reshape(n, -1, 4)
    anc = _arr(anchors).reshape(-1, 4)
    var = _arr(variances).reshape(-1, 4)
    im = _arr(img_size)
    rois, probs, nums = [], [], []
    for i in range(n):
        r, p = _proposals_one_image(im[i], anc, var, d[i], s[i], int(pre_nms_top_n),
                                    int(post_nms_top_n), float(nms_thresh), float(min_size),
                                    float(eta), bool(pixel_offset), t)
        rois.append(r)
        probs.append(p)
        nums.append(r.shape[0])
    return (Tensor._wrap(np.concatenate(rois).astype(t, copy=False), True),
            Tensor._wrap(np.concatenate(probs).astype(t, copy=False), True),
            Tensor._wrap(np.asarray(nums, np.int32), True))


# ======================================================================= matrix_nms
def _box_area(b, normalized, t):
    w, h = b[..., 2] - b[..., 0], b[..., 3] - b[..., 1]
    area = w * h if normalized else (w + t(1)) * (h + t(1))
    return np.where((b[..., 2] < b[..., 0]) | (b[..., 3] < b[..., 1]), t(0), area)


def _jaccard(b1, b2, normalized, t):
    """JaccardOverlap<T> of every pair of b1 (n, 4) and b2 (m, 4): (n, m)."""
    a, b = b1[:, None], b2[None, :]
    apart = (b[..., 0] > a[..., 2]) | (b[..., 2] < a[..., 0]) | (b[..., 1] > a[..., 3]) | \
        (b[..., 3] < a[..., 1])
    norm = t(0) if normalized else t(1)
    iw = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + norm
    ih = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + norm
    inter = iw * ih
    with np.errstate(all="ignore"):
        iou = inter / (_box_area(a, normalized, t) + _box_area(b, normalized, t) - inter)
    return np.where(apart, t(0), iou)


def _matrix_nms_class(boxes, scores, score_thr, post_thr, sigma, top_k, normalized, gaussian, t):
    """NMSMatrix<T> of one class: the kept box indices and their decayed scores."""
    cand = np.flatnonzero(scores > score_thr)
    if cand.size == 0:
        return [], []
    order = cand[np.argsort(-scores[cand].astype(np.float64), kind="stable")]
    if top_k > -1:
        order = order[:top_k]
    n = order.size
    iou = _jaccard(boxes[order], boxes[order], normalized, t)
    iou_max = np.zeros(n, t)
    for i in range(1, n):
        iou_max[i] = max(t(0), iou[i, :i].max())
    keep, kept_scores = [], []
    if scores[order[0]] > post_thr:
        keep.append(order[0])
        kept_scores.append(scores[order[0]])
    for i in range(1, n):
        j = np.arange(i)
        if gaussian:   # std::exp of T: glibc's expf / exp
            decay = _libm("exp", np.dtype(t))(
                (iou_max[j] * iou_max[j] - iou[i, j] * iou[i, j]) * t(sigma))
        else:
            decay = ((1.0 - iou[i, j].astype(np.float64))
                     / (1.0 - iou_max[j].astype(np.float64))).astype(t)
        ds = t(min(t(1), decay.min()) * scores[order[i]])
        if ds <= post_thr:
            continue
        keep.append(order[i])
        kept_scores.append(ds)
    return keep, kept_scores


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
               use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True,
               return_index=False, return_rois_num=True, name=None):
    """SOLOv2's Matrix NMS per image and class (scores decayed by the overlaps with the
    higher-scored boxes, linear or Gaussian), the best ``keep_top_k`` of an image kept: rows
    [label, score, x1, y1, x2, y2] (Paddle's CPU kernel; no gradient)."""
    b, s = _arr(bboxes), _arr(scores)
    t = b.dtype.type
    rows, index, nums = [], [], []
    for i in range(s.shape[0]):
        idx, sc, cls = [], [], []
        for c in range(s.shape[1]):
            if c == background_label:
                continue
            k, v = _matrix_nms_class(b[i], s[i, c], t(np.float32(score_threshold)),
                                     t(np.float32(post_threshold)), np.float32(gaussian_sigma),
                                     int(nms_top_k), bool(normalized), bool(use_gaussian), t)
            idx += k
            sc += v
            cls += [t(c)] * len(k)
        n = len(idx)
        if keep_top_k > -1:
            n = min(n, int(keep_top_k))
        order = np.argsort(-np.asarray(sc, np.float64), kind="stable")[:n] if idx else []
        for p in order:
            rows.append(np.concatenate([[cls[p], sc[p]], b[i, idx[p]]]).astype(t))
            index.append(i * s.shape[2] + idx[p])
        nums.append(n)
    out = np.stack(rows).astype(t) if rows else np.zeros((0, b.shape[2] + 2), t)
    out_t = Tensor._wrap(out, True)
    index_t = Tensor._wrap(np.asarray(index, np.int32).reshape(-1, 1), True)
    num_t = Tensor._wrap(np.asarray(nums, np.int32), True)
    return (out_t, num_t if return_rois_num else None, index_t if return_index else None)


# ======================================================================= distribute_fpn_proposals
def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale,
                             pixel_offset=False, rois_num=None, name=None):
    """FPN's RoI levels: ``floor(log2(sqrt(area) / refer_scale + 1e-6) + refer_level)`` clipped
    to [min_level, max_level]; the RoIs of each level (image by image), the index that restores
    the input order and the RoIs per image and level (Paddle's CPU kernel)."""
    assert max_level > 0 and min_level > 0, "min_level and max_level should be greater than 0"
    num_lvl = max_level - min_level + 1
    assert num_lvl > 1, "max_level should be greater than min_level"
    assert num_lvl < 100, "Only support max to 100 levels, (max_level - min_level + 1 < 100)"
    assert rois_num is not None, "rois_num should not be None in dygraph mode."
    r = _arr(fpn_rois)
    t = r.dtype.type
    counts = np.asarray(_arr(rois_num), np.int64).reshape(-1)
    log2 = _libm("log2", r.dtype)
    scale = np.sqrt(_box_area(r, not pixel_offset, t)).astype(t)
    lvl = np.floor(log2((scale / t(refer_scale) + t(1e-6)).astype(t)) + t(refer_level))
    lvl = np.clip(lvl.astype(np.int64), min_level, max_level)
    image = np.repeat(np.arange(counts.size), counts)
    order = np.lexsort((np.arange(r.shape[0]), image, lvl))     # by level, image, position
    restore = np.empty(r.shape[0], np.int32)
    restore[order] = np.arange(r.shape[0], dtype=np.int32)
    multi, per_level = [], []
    for level in range(min_level, max_level + 1):
        sel = order[lvl[order] == level]
        multi.append(Tensor._wrap(r[sel].reshape(-1, 4), True))
        per_level.append(Tensor._wrap(np.bincount(image[sel], minlength=counts.size)
                                      .astype(np.int32), True))
    return multi, Tensor._wrap(restore.reshape(-1, 1), True), per_level
