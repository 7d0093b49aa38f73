FROM python:3.11-slim
WORKDIR /app
COPY trainer /app/trainer
RUN pip install --no-cache-dir -r requirements.txt
ENTRYPOINT ["python3","-m","trainer.task"]
