// Output epilogue shared by CONV2D / DEPTHWISE_CONV2D / MATMUL: the raw accumulator, or the
// fused RESCALE (tosa.md §5, scale32; the accumulator is int32 so RESCALE's input_zp is 0)
// followed by the clamp to [p.clamp_min, p.clamp_max] and, with EPI_TABLE, an int8 TABLE whose
// 256 entries follow the shifts in data_shift. Needs p.flags, p.out_zp, p.clamp_*.
#ifdef FLOAT_PATH
OUT_T epilogue(float acc, int channel) {
  if ((p.flags & EPI_FUSED_RESCALE) != 0) {
    // fp32 graphs have no RESCALE; the flag means "apply the fused CLAMP".
    acc = min(max(acc, intBitsToFloat(p.clamp_min)), intBitsToFloat(p.clamp_max));
  }
  return OUT_T(acc);
}
#else
OUT_T epilogue(int acc, int channel) {
  if ((p.flags & EPI_FUSED_RESCALE) == 0) return OUT_T(acc);
  int c = (p.flags & EPI_PER_CHANNEL) != 0 ? channel : 0;
  int v = apply_scale_32(acc, data_mult[c], data_shift[c], (p.flags & EPI_DOUBLE_ROUND) != 0);
  v = clamp(v + p.out_zp, p.clamp_min, p.clamp_max);
  // Fused int8 TABLE (tosa.md §8): v is int8 here, so the index is in [0, 255].
  if ((p.flags & EPI_TABLE) != 0) v = data_shift[(p.flags >> 8) + v + 128];
  return OUT_T(v);
}
#endif
