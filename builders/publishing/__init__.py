"""Publishing to the Hugging Face Hub: bounded Parquet shards (plain or sealed), the card, the manifest, the upload,
and reading a release back.  Plain Python, `pyarrow` and `huggingface_hub`; no `datasets`.
"""
