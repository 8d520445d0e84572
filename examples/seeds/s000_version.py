import paddle
import paddle.nn.functional as F
import numpy as np
print(paddle.__version__)
