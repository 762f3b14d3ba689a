"""torchvision's detection and optical-flow models, which neither capture path exports: the
note added to a capture's error for them, saying what in them graft cannot capture and which
part of the model to export instead (docs/exporter.md, "Detection and optical flow"). The
capture's own error stays first: it names the op and the line of torchvision's code.
"""

DOCS = 'docs/exporter.md, "Detection and optical flow"'


def kind(module):
    """'detection' or 'optical_flow' for a torchvision model of that kind (or a subclass of
    one), else None."""
    for cls in type(module).__mro__:
        where = cls.__module__ or ""
        for k in ("detection", "optical_flow"):
            if where.startswith("torchvision.models.%s." % k):
                return k
    return None


def note(module):
    """The note for a model that failed to export, or '' when the model is of no such kind."""
    which = kind(module)
    name = type(module).__name__
    if which == "detection":
        return ("\nNeither capture path can export %s, one of torchvision's detection models: "
                "its pre- and post-processing depend on the data, which one graph cannot "
                "express. The transform loops over the images%s; box selection (score "
                "threshold, top-k, non-maximum suppression) returns as many boxes as the scores "
                "let through (data-dependent output sizes). Export the network without them: "
                "%s; keep the transform, the anchors, box decoding and NMS in PyTorch (%s)."
                % (name, _resize(module), _detection_parts(module), DOCS))
    if which == "optical_flow":
        return ("\nNeither capture path can export %s, torchvision's optical-flow model: each "
                "refinement step samples the correlation volume at the current flow estimate "
                "(F.grid_sample at data-dependent positions), for which graft has no op. "
                "Export model.feature_encoder and model.context_encoder (CNNs; the feature "
                "encoder's InstanceNorm2d exports as group_norm), and keep the correlation and "
                "the update loop in PyTorch (%s)."
                % (name, DOCS))
    return ""


def _resize(module):
    transform = getattr(module, "transform", None)
    if transform is not None and getattr(transform, "fixed_size", None):
        return ""   # SSD resizes to a fixed size
    return " and resizes each by a factor it reads back from a tensor (scale.item())"


def _detection_parts(module):
    from torchvision.models.detection import fcos, retinanet, ssd
    if isinstance(module, (retinanet.RetinaNet, fcos.FCOS, ssd.SSD)):
        # dense heads: one prediction per anchor of every feature map
        return ("a module whose forward is `self.head(list(self.backbone(x).values()))` (the "
                "feature maps' per-anchor class logits and box deltas), or model.backbone "
                "alone (the feature maps)")
    return ("model.backbone (the feature maps), and model.rpn.head on them (the region "
            "proposals' scores and box deltas; the ROI heads work on the selected boxes, so "
            "they stay in PyTorch too)")
