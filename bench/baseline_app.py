"""The cold-start baseline: the smallest FastAPI app behind Mangum, one POST route answering JSON.

bench/cold_start_packaged.py packages it as it packages a function and imports it as a top-level
module (`baseline_app.lambda_handler`) in a fresh process, exactly as it imports our handler, so the
ratio between the two is the cost of everything Persona Rails adds on top of FastAPI + Mangum.
"""

from fastapi import FastAPI
from mangum import Mangum

app = FastAPI()


@app.post("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


lambda_handler = Mangum(app, lifespan="off")
