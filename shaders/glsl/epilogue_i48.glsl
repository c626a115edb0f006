// Output of the int16 convolution / matmul shaders (conv_i48.comp, matmul_i48.comp): the int48
// result itself, or with FUSED_RESCALE the RESCALE that follows it (tosa.md §5; an int48 input
// allows only apply_scale_16, exactly rescale_i48.comp's arithmetic: input_zp is 0 when fused),
// then the output zero point and the clamp to [p.clamp_min, p.clamp_max] (the RESCALE output
// type's range narrowed by a fused CLAMP). Needs p.flags, p.out_zp, p.clamp_*, data_mult and
// data_shift. Include after the Params block.
#ifdef FUSED_RESCALE
OUT_T epilogue_i48(int64_t value, int channel) {
  int c = (p.flags & EPI_PER_CHANNEL) != 0 ? channel : 0;
  int shift = clamp(data_shift[c], 1, 62);
  int64_t scaled = (value * int64_t(data_mult[c]) + (int64_t(1) << (shift - 1))) >> shift;
  scaled = clamp(scaled, int64_t(-2147483648), int64_t(2147483647));
  return OUT_T(int(clamp(scaled + int64_t(p.out_zp), int64_t(p.clamp_min), int64_t(p.clamp_max))));
}
#else
int64_t epilogue_i48(int64_t value, int channel) { return value; }
#endif
