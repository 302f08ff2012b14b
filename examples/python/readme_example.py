import svmgo

X = [[1, 1], [2, 1.5], [-1, -1], [-2, -0.5]]  # four rows of two features
y = [1, 1, -1, -1]

with svmgo.Trainer("-s 1 -c 10", capacity_rows=4, num_features=2) as trainer:
    trainer.add(X, y)
    with trainer.fit() as model:
        print(model.labels, model.predict([[1.5, 1], [-1, -2]]))
        try:
            model.predict([[1, 2, 3]])  # three features, the model has two
        except svmgo.Error as e:
            print(e.name, e.code)  # SVMGO_E_DIMENSION -3
