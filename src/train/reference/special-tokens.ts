/** The special tokens after the 256 byte tokens, in id order: every tokenizer of the reference engine has them. */
export const SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|pad|>'] as const;
