"""MediaPipe's documented Hands example (legacy `mp.solutions` docs), retyped
with only its import line changed: static images, then the webcam loop.

  python3 mediapipe_hands_example.py IMAGE [IMAGE ...]

The documented script leaves IMAGE_FILES for the user to fill; here they come
from the command line, and the annotated images go to
$ANNOTATED_PREFIX<index>.png (default /tmp/annotated_image<index>.png, as in
the docs). Without a camera the webcam loop ends at once.
"""
import os
import sys

import cv2
import sluice.compat as mp  # was: import mediapipe as mp

mp_drawing = mp.solutions.drawing_utils
mp_drawing_styles = mp.solutions.drawing_styles
mp_hands = mp.solutions.hands

IMAGE_FILES = sys.argv[1:]
OUT_PREFIX = os.environ.get("ANNOTATED_PREFIX", "/tmp/annotated_image")

# Static images.
with mp_hands.Hands(
    static_image_mode=True,
    max_num_hands=2,
    min_detection_confidence=0.5) as hands:
  for idx, file in enumerate(IMAGE_FILES):
    # Mirrored, so that the handedness reads as for a selfie camera.
    image = cv2.flip(cv2.imread(file), 1)
    # The model wants RGB; OpenCV reads BGR.
    results = hands.process(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))

    print('Handedness:', results.multi_handedness)
    if not results.multi_hand_landmarks:
      continue
    image_height, image_width, _ = image.shape
    annotated_image = image.copy()
    for hand_landmarks in results.multi_hand_landmarks:
      print('hand_landmarks:', hand_landmarks)
      print(
          f'Index finger tip coordinates: (',
          f'{hand_landmarks.landmark[mp_hands.HandLandmark.INDEX_FINGER_TIP].x * image_width}, '
          f'{hand_landmarks.landmark[mp_hands.HandLandmark.INDEX_FINGER_TIP].y * image_height})'
      )
      mp_drawing.draw_landmarks(
          annotated_image,
          hand_landmarks,
          mp_hands.HAND_CONNECTIONS,
          mp_drawing_styles.get_default_hand_landmarks_style(),
          mp_drawing_styles.get_default_hand_connections_style())
    cv2.imwrite(OUT_PREFIX + str(idx) + '.png', cv2.flip(annotated_image, 1))
    # The 3-D world landmarks.
    if not results.multi_hand_world_landmarks:
      continue
    for hand_world_landmarks in results.multi_hand_world_landmarks:
      mp_drawing.plot_landmarks(
          hand_world_landmarks, mp_hands.HAND_CONNECTIONS, azimuth=5)

# Webcam.
cap = cv2.VideoCapture(0)
with mp_hands.Hands(
    model_complexity=0,
    min_detection_confidence=0.5,
    min_tracking_confidence=0.5) as hands:
  while cap.isOpened():
    success, image = cap.read()
    if not success:
      print("Ignoring empty camera frame.")
      # (For a video file: break here instead.)
      continue

    # A read-only frame can be passed by reference.
    image.flags.writeable = False
    image = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
    results = hands.process(image)

    # Draw on the BGR frame.
    image.flags.writeable = True
    image = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
    if results.multi_hand_landmarks:
      for hand_landmarks in results.multi_hand_landmarks:
        mp_drawing.draw_landmarks(
            image,
            hand_landmarks,
            mp_hands.HAND_CONNECTIONS,
            mp_drawing_styles.get_default_hand_landmarks_style(),
            mp_drawing_styles.get_default_hand_connections_style())
    # Mirrored for a selfie view.
    cv2.imshow('MediaPipe Hands', cv2.flip(image, 1))
    if cv2.waitKey(5) & 0xFF == 27:
      break
cap.release()
